//! README.md and docs/ kept true against the binary:
//!
//! - the command table in README's "Commands" lists exactly the commands
//!   and options `winic --help` and `winic COMMAND --help` list (an option
//!   added without a row, or a row for an option that is gone, fails);
//! - the two commands a newcomer runs (measure, test) are near the top, and
//!   `.ci/run` runs that test command;
//! - every relative link of README.md and docs/*.md reaches a file, and
//!   a heading where it names one;
//! - every fenced block whose first line is `$ winic ARGS` holds exactly
//!   what that command prints (standard output, then standard error). Only
//!   output that depends on nothing but the binary belongs in such a block
//!   (`list`, `show` with `--arch`); host-dependent or shortened output is
//!   written without the `$ winic` line;
//! - no output shown in a fenced block claims a rate no x86 core has: a
//!   throughput, a floor or any value "cycles per instruction" of at
//!   least 0.1 (ten instructions a cycle);
//! - docs/architecture.md's module map names only paths that exist, and
//!   has a row for every file and folder directly under `src/` and every
//!   folder under `src/mode/`.
//!
//! The binary runs through `common::winic_command`, so under
//! scripts/test-cross.sh this checks the emulated AArch64 or RISC-V build.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Options by long name, with their short letter if they have one.
type Options = BTreeMap<String, Option<char>>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every docs/*.md, as (path relative to the root, text).
fn documents() -> Vec<(String, String)> {
    let mut docs = vec![("README.md".to_string(), read(&root().join("README.md")))];
    let mut names: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    for n in names {
        let path = format!("docs/{n}");
        let text = read(&root().join(&path));
        docs.push((path, text));
    }
    docs
}

/// What `winic ARGS` prints: standard output, then standard error.
fn winic_prints(args: &[&str]) -> String {
    let o = common::winic_command(args)
        .output()
        .unwrap_or_else(|e| panic!("winic {args:?}: {e}"));
    let mut text = String::from_utf8(o.stdout).expect("UTF-8 output");
    text.push_str(&String::from_utf8(o.stderr).expect("UTF-8 output"));
    text
}

/// The text of `winic ARGS --help`, which must succeed.
fn help(args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.push("--help");
    let o = common::winic_command(&a).output().unwrap();
    assert!(o.status.success(), "winic {a:?}: {o:?}");
    String::from_utf8(o.stdout).unwrap()
}

/// The lines of section `name` ("Options:", "Commands:") of a help text.
fn help_section<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != name)
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .collect()
}

/// The options a help text lists. An option's own line starts with two
/// spaces and `-x, --long` or six spaces and `--long`; descriptions are
/// indented further.
fn help_options(text: &str) -> Options {
    let mut options = Options::new();
    for line in help_section(text, "Options:") {
        let (short, rest) = if let Some(r) = line.strip_prefix("      --") {
            (None, r)
        } else if let Some(r) = line.strip_prefix("  -") {
            let mut c = r.chars();
            let short = c.next().filter(|c| c.is_ascii_alphanumeric());
            match (short, c.as_str().strip_prefix(", --")) {
                (Some(s), Some(r)) => (Some(s), r),
                _ => panic!("an option line of the help that is not `-x, --long`: {line:?}"),
            }
        } else {
            continue;
        };
        let long: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        options.insert(long, short);
    }
    assert!(!options.is_empty(), "no options in:\n{text}");
    options
}

/// The commands `winic --help` lists.
fn help_commands(text: &str) -> BTreeSet<String> {
    help_section(text, "Commands:")
        .iter()
        .filter(|l| l.len() > 2 && l.starts_with("  ") && !l[2..].starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The cells of a Markdown table row (`\|` is a pipe inside a cell).
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

/// README's command table: options per command, and under "" the options
/// of every command (the row `**`winic`**`). A row `**`winic NAME …`**`
/// names a command and owns the option rows after it; a command row whose
/// text ends with `:` shares them with the command rows right above it.
fn readme_table(readme: &str) -> BTreeMap<String, Options> {
    let rows: Vec<&str> = readme
        .lines()
        .skip_while(|l| *l != "## Commands")
        .skip_while(|l| !l.starts_with("| command"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(
        !rows.is_empty(),
        "README has no command table under ## Commands"
    );
    let mut table: BTreeMap<String, Options> = BTreeMap::new();
    let mut group: Vec<String> = Vec::new();
    let mut last_was_command = false;
    for row in rows {
        let cells = cells(row);
        let (first, text) = (&cells[0], cells.get(1).map_or("", String::as_str));
        if let Some(span) = first
            .strip_prefix("**`winic")
            .and_then(|s| s.strip_suffix("`**"))
        {
            let name = span.split_whitespace().next().unwrap_or("").to_string();
            // A command whose text ends with `:` shares the options below
            // it with the commands in the rows right above it (LAT takes
            // TP's); the options of every command are a group of their own.
            let shares = last_was_command && text.ends_with(':') && !name.is_empty();
            if !shares || group == [""] {
                group.clear();
            }
            group.push(name.clone());
            assert!(
                table.insert(name.clone(), Options::new()).is_none(),
                "README's table names `winic {name}` twice"
            );
            last_was_command = true;
        } else if let Some(span) = first.strip_prefix('`').and_then(|s| s.strip_suffix('`')) {
            let (short, long) = match span.split_once(", --") {
                Some((s, l)) => (s.strip_prefix('-').and_then(|s| s.chars().next()), l),
                None => (
                    None,
                    span.strip_prefix("--").unwrap_or_else(|| panic!("{row}")),
                ),
            };
            let long = long.split_whitespace().next().unwrap().to_string();
            assert!(!group.is_empty(), "an option row before any command: {row}");
            for cmd in &group {
                let prev = table.get_mut(cmd).unwrap().insert(long.clone(), short);
                assert!(prev.is_none(), "`{cmd}` lists --{long} twice");
            }
            last_was_command = false;
        } else {
            panic!(
                "a row of README's command table that is neither a command nor an option: {row}"
            );
        }
    }
    table
}

/// What differs between the options the binary lists and the table's.
fn differences(what: &str, binary: &Options, readme: &Options) -> Vec<String> {
    let mut out = Vec::new();
    for (long, short) in binary {
        match readme.get(long) {
            None => out.push(format!(
                "{what}: --{long} is in the binary's help, not in README's table"
            )),
            Some(s) if s != short => out.push(format!(
                "{what}: --{long} has the short option {short:?} in the help, {s:?} in README"
            )),
            Some(_) => {}
        }
    }
    for long in readme.keys().filter(|l| !binary.contains_key(*l)) {
        out.push(format!(
            "{what}: --{long} is in README's table, not in the binary's help"
        ));
    }
    out
}

#[test]
fn the_command_table_lists_every_command_and_option_of_the_binary() {
    let readme = read(&root().join("README.md"));
    let table = readme_table(&readme);
    assert!(
        table.len() > 5,
        "README's command table has {} commands",
        table.len()
    );
    let global = table
        .get("")
        .expect("a row **`winic`** for every command's options");
    let top = help(&[]);
    let mut wrong = differences("winic", &help_options(&top), global);

    let commands = help_commands(&top);
    let in_table: BTreeSet<String> = table.keys().filter(|k| !k.is_empty()).cloned().collect();
    for c in commands.difference(&in_table) {
        wrong.push(format!(
            "`winic {c}` is in the binary's help, not in README's table"
        ));
    }
    for c in in_table.difference(&commands) {
        wrong.push(format!(
            "`winic {c}` is in README's table, not in the binary's help"
        ));
    }
    for cmd in commands.intersection(&in_table) {
        if cmd == "help" {
            assert!(table[cmd].is_empty(), "`winic help` takes no options");
            continue;
        }
        let mut expected = table[cmd].clone();
        expected.extend(global.iter().map(|(k, v)| (k.clone(), *v)));
        let binary = help_options(&help(&[cmd]));
        wrong.extend(differences(&format!("winic {cmd}"), &binary, &expected));
    }
    assert!(
        wrong.is_empty(),
        "README.md, ## Commands:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_newcomer_finds_the_measure_and_test_commands_at_the_top() {
    let readme = read(&root().join("README.md"));
    let top: Vec<&str> = readme.lines().take(40).collect();
    // A command line, without its comment.
    let has = |cmd: &str| {
        top.iter()
            .any(|l| l.split(" #").next().unwrap().trim() == cmd)
    };
    for cmd in ["cargo run --release -- TP", "cargo test"] {
        assert!(has(cmd), "`{cmd}` is not a line of README's first 40");
    }
    // CI runs the test command README gives.
    let ci = read(&root().join(".ci/run"));
    assert!(
        ci.lines()
            .map(str::trim_start)
            .any(|l| l == "cargo test" || l.starts_with("cargo test ")),
        ".ci/run does not run `cargo test`"
    );
}

/// Every test file is in one of scripts/test-cross.sh's lists (under
/// qemu, or host only) and in docs/cross.md's table of what runs where,
/// and each list's files exist.
#[test]
fn every_test_file_is_placed_under_qemu_or_on_the_host_only() {
    let script = read(&root().join("scripts/test-cross.sh"));
    let list = |name: &str| -> Vec<String> {
        let line = script
            .lines()
            .find(|l| l.starts_with(&format!("{name}=(")))
            .unwrap_or_else(|| panic!("no {name}=(...) in scripts/test-cross.sh"));
        let inner = &line[name.len() + 2..line.rfind(')').expect("a one-line list")];
        inner.split_whitespace().map(str::to_owned).collect()
    };
    let (cross, host) = (list("CROSS_TESTS"), list("HOST_ONLY_TESTS"));
    let doc = read(&root().join("docs/cross.md"));
    let mut files: Vec<String> = std::fs::read_dir(root().join("tests"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    files.sort();
    for f in &files {
        let placed = cross.contains(f) as u8 + host.contains(f) as u8;
        assert_eq!(
            placed, 1,
            "tests/{f}.rs must be in exactly one of CROSS_TESTS, HOST_ONLY_TESTS"
        );
        assert!(
            doc.contains(&format!("`tests/{f}.rs`")),
            "docs/cross.md does not say where tests/{f}.rs runs"
        );
    }
    for f in cross.iter().chain(&host) {
        assert!(
            files.contains(f),
            "scripts/test-cross.sh lists tests/{f}.rs, which is gone"
        );
    }
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces as `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks), with
/// GitHub's `-1`, `-2` … for repeated ones.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            let s = slug(line.trim_start_matches('#'));
            let n = seen.entry(s.clone()).or_default();
            out.insert(if *n == 0 {
                s.clone()
            } else {
                format!("{s}-{n}")
            });
            *n += 1;
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a Markdown text.
fn links(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn every_relative_link_reaches_a_file_and_heading() {
    let docs = documents();
    let mut broken = Vec::new();
    let mut to_docs = 0;
    for (path, text) in &docs {
        let dir = Path::new(path).parent().unwrap();
        for target in links(text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file_path = if file.is_empty() {
                root().join(path)
            } else {
                root().join(dir).join(file)
            };
            if path == "README.md" && file.starts_with("docs/") {
                to_docs += 1;
            }
            if !file_path.exists() {
                broken.push(format!(
                    "{path}: ({target}): no file {}",
                    file_path.display()
                ));
            } else if !anchor.is_empty() && !anchors(&read(&file_path)).contains(anchor) {
                broken.push(format!("{path}: ({target}): no heading #{anchor} there"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(to_docs >= 5, "README links docs/ only {to_docs} times");
}

/// A command line split into words as a shell would, for the plain words
/// and single quotes examples use.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            '"' | '\\' | '$' | '*' | '?' | '|' | '>' | '<' | ';' | '&' if !quoted => {
                panic!("`{line}`: only plain words and '…' are supported in examples")
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(!quoted, "`{line}`: unclosed quote");
    words.extend(word);
    words
}

/// The example blocks of a Markdown text: (line number, the `winic …`
/// command, the output it shows).
fn examples(text: &str) -> Vec<(usize, String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("```") {
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].trim_start().starts_with("```"))
                .unwrap_or_else(|| panic!("line {}: unclosed code block", i + 1));
            if let Some(cmd) = lines.get(i + 1).and_then(|l| l.strip_prefix("$ winic ")) {
                let shown: String = lines[i + 2..end].iter().map(|l| format!("{l}\n")).collect();
                out.push((i + 2, cmd.to_string(), shown));
            }
            i = end;
        }
        i += 1;
    }
    out
}

#[test]
fn example_outputs_are_what_the_binary_prints() {
    let mut wrong = Vec::new();
    let mut in_readme = 0;
    for (path, text) in documents() {
        for (line, cmd, shown) in examples(&text) {
            in_readme += usize::from(path == "README.md");
            let words = shell_words(&cmd);
            let args: Vec<&str> = words.iter().map(String::as_str).collect();
            let printed = winic_prints(&args);
            if printed != shown {
                let at = shown
                    .lines()
                    .zip(printed.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(shown.lines().count().min(printed.lines().count()));
                wrong.push(format!(
                    "{path}:{line}: `winic {cmd}` prints otherwise, from its line {}:\n  shown:   {:?}\n  printed: {:?}\n--- the whole output:\n{printed}---",
                    at + 1,
                    shown.lines().nth(at).unwrap_or("(nothing)"),
                    printed.lines().nth(at).unwrap_or("(nothing)"),
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        in_readme >= 2,
        "README has {in_readme} `$ winic` examples; it should show some"
    );
}

#[test]
fn the_table_parser_reads_groups_and_escaped_pipes() {
    let readme = "## Commands\n\n| command, option | what |\n|---|---|\n\
        | **`winic TP`** | t |\n| **`winic LAT`** | l, as TP: |\n| `-i, --instr <N>...` | i |\n\
        | **`winic host`** | h |\n| **`winic list`** | l |\n| `--arch <A>` | a |\n\
        | **`winic help`** | h |\n\
        | **`winic`** | all |\n| `-f, --frequency <GHz\\|auto>` | f |\n\nafter\n";
    let t = readme_table(readme);
    assert_eq!(t["TP"], t["LAT"]);
    assert_eq!(t["TP"].get("instr"), Some(&Some('i')));
    assert_eq!(t["list"].keys().collect::<Vec<_>>(), ["arch"]);
    assert!(t["host"].is_empty() && t["help"].is_empty());
    assert_eq!(t[""].get("frequency"), Some(&Some('f')));
    assert_eq!(
        shell_words("list --filter '^vfmacc\\.' --arch riscv"),
        ["list", "--filter", "^vfmacc\\.", "--arch", "riscv"]
    );
    assert_eq!(
        slug("Kernels as assembly files: `--dump-asm DIR`"),
        "kernels-as-assembly-files---dump-asm-dir"
    );
}

/// The fenced blocks of a Markdown text: (line number of the first line
/// inside, the lines inside).
fn fenced_blocks(text: &str) -> Vec<(usize, Vec<&str>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("```") {
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].trim_start().starts_with("```"))
                .unwrap_or(lines.len());
            out.push((i + 2, lines[i + 1..end].to_vec()));
            i = end;
        }
        i += 1;
    }
    out
}

/// The per-instruction costs a line of shown output states, in cycles:
/// the number before `cycles per instruction`, after `floor:`, and after
/// a database's `throughput:`, `throughputMin:` or `throughputMax:`;
/// each value once.
fn stated_costs(line: &str) -> Vec<f64> {
    let number_at_start = |s: &str| -> Option<f64> {
        let n: String = s
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        n.parse().ok()
    };
    let number_at_end = |s: &str| -> Option<f64> {
        let t = s.trim_end();
        let start = t
            .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(0, |i| i + 1);
        t[start..].parse().ok()
    };
    let mut out = Vec::new();
    for (at, _) in line.match_indices(" cycles per instruction") {
        out.extend(number_at_end(&line[..at]));
    }
    for key in ["floor:", "throughput:", "throughputMin:", "throughputMax:"] {
        for (at, _) in line.match_indices(key) {
            out.extend(number_at_start(&line[at + key.len()..]));
        }
    }
    // `floor: 0.149 cycles per instruction` states one value, not two.
    out.sort_by(f64::total_cmp);
    out.dedup();
    out
}

/// The fewest cycles per instruction any x86 core sustains, with room:
/// the widest issue ten instructions a cycle.
const FASTEST_CYCLES_PER_INSTRUCTION: f64 = 0.1;

#[test]
fn shown_outputs_claim_no_rate_beyond_any_core() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (path, text) in documents() {
        for (first, lines) in fenced_blocks(&text) {
            for (k, line) in lines.iter().enumerate() {
                for v in stated_costs(line) {
                    checked += 1;
                    if v < FASTEST_CYCLES_PER_INSTRUCTION {
                        wrong.push(format!(
                            "{path}:{}: {v} cycles per instruction ({:.0} a cycle), which no x86 core \
                             sustains: show real output of a named run: {line:?}",
                            first + k,
                            1.0 / v
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        checked > 0,
        "no shown output states a cost: the check reads nothing"
    );
}

#[test]
fn the_cost_reader_finds_floors_throughputs_and_cycles_per_instruction() {
    assert_eq!(
        stated_costs("  floor:      0.068 cycles per instruction (a block of independent no-ops)"),
        [0.068]
    );
    assert_eq!(stated_costs("  throughputMax:   0.53"), [0.53]);
    assert_eq!(
        stated_costs("winic MAN -p f.s --funcName kernel -n 8   # 2.880 cycles per instruction"),
        [2.88]
    );
    assert!(stated_costs("TP: 3 forms in 0.0 s (3882.8 forms/s)").is_empty());
}

/// The `src/...` paths (backticked) in docs/architecture.md's module
/// table, each with whether it stands in the row's first cell (the row's
/// module) and the line it is on.
fn module_map(text: &str) -> Vec<(String, bool, usize)> {
    let mut out = Vec::new();
    let mut in_table = false;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("| module |") {
            in_table = true;
            continue;
        }
        if in_table && !line.starts_with('|') {
            break;
        }
        if !in_table || line.starts_with("|---") {
            continue;
        }
        for (i, cell) in cells(line).iter().enumerate() {
            for (j, span) in cell.split('`').enumerate() {
                if j % 2 == 1 && span.starts_with("src/") && !span.contains(' ') {
                    out.push((span.to_string(), i == 0, n + 1));
                }
            }
        }
    }
    out
}

/// Whether a path of the map is in the tree: a folder when it ends with
/// `/`, a file otherwise; `*` stands for any one path component.
fn in_tree(path: &str) -> bool {
    let dir = path.ends_with('/');
    let mut found = vec![root()];
    for part in path.trim_end_matches('/').split('/') {
        found = found
            .iter()
            .flat_map(|base| {
                if part == "*" {
                    std::fs::read_dir(base)
                        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
                        .unwrap_or_default()
                } else {
                    vec![base.join(part)]
                }
            })
            .collect();
    }
    found
        .iter()
        .any(|p| if dir { p.is_dir() } else { p.is_file() })
}

/// The modules the map must have a row for: every file (`src/X.rs`) and
/// folder (`src/X/`) directly under `src/`, and every folder under
/// `src/mode/`.
fn modules_of_the_tree() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for dir in ["src", "src/mode"] {
        for e in std::fs::read_dir(root().join(dir)).expect(dir) {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                out.insert(format!("{dir}/{name}/"));
            } else if dir == "src" && name.ends_with(".rs") {
                out.insert(format!("{dir}/{name}"));
            }
        }
    }
    out
}

/// What is wrong between a module map and the tree's modules: paths the
/// map names that `exists` denies, and modules without a row.
fn map_errors(
    map: &[(String, bool, usize)],
    modules: &BTreeSet<String>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for (path, _, line) in map {
        if !exists(path) {
            wrong.push(format!(
                "docs/architecture.md:{line}: `{path}` is in the module map but not in the tree"
            ));
        }
    }
    let rows: BTreeSet<&str> = map
        .iter()
        .filter(|(_, first, _)| *first)
        .map(|(p, _, _)| p.as_str())
        .collect();
    for m in modules.iter().filter(|m| !rows.contains(m.as_str())) {
        wrong.push(format!(
            "docs/architecture.md: the module `{m}` has no row in the module map"
        ));
    }
    wrong
}

#[test]
fn the_module_map_matches_the_tree() {
    let text = read(&root().join("docs/architecture.md"));
    let map = module_map(&text);
    assert!(
        map.iter().filter(|(_, first, _)| *first).count() > 10,
        "docs/architecture.md has no module table (`| module | owns |`) with `src/...` rows"
    );
    let wrong = map_errors(&map, &modules_of_the_tree(), &in_tree);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_module_map_check_names_what_is_gone_and_what_is_missing() {
    let text = "| module | owns |\n|---|---|\n| `src/db/` | the database, `src/db/mod.rs` |\n\
        | `src/old.rs` | gone |\n\nafter: `src/not-read.rs`\n";
    let map = module_map(text);
    assert_eq!(
        map.iter()
            .map(|(p, f, _)| (p.as_str(), *f))
            .collect::<Vec<_>>(),
        [
            ("src/db/", true),
            ("src/db/mod.rs", false),
            ("src/old.rs", true)
        ]
    );
    let modules: BTreeSet<String> = ["src/db/", "src/mode/ports/"].map(String::from).into();
    let wrong = map_errors(&map, &modules, &|p| p != "src/old.rs");
    assert_eq!(wrong.len(), 2, "{wrong:?}");
    assert!(wrong[0].contains("`src/old.rs` is in the module map but not in the tree"));
    assert!(wrong[1].contains("the module `src/mode/ports/` has no row"));
    assert!(in_tree("src/mode/") && in_tree("src/*/mod.rs") && !in_tree("src/mode.rs"));
}
