//! What a database file may hold before winic parses it: a bounded size,
//! no YAML anchors or aliases, one entry per form. A database may come
//! from someone else (a colleague's node, a published file), and YAML's
//! aliases let a file of one megabyte expand to gigabytes in the parser,
//! so these are checked on the text, before anything is built from it.

use super::Entry;
use std::collections::BTreeMap;

/// The largest database file winic reads: 64 MiB. A full x86 run's
/// database is a few MB (17,840 forms).
pub const MAX_BYTES: u64 = 64 << 20;

/// The most YAML nodes winic parses in one file, counted by [`nodes`].
/// The parser holds every node of a document at once, about 130 bytes
/// each (a 16 MiB file of 8 million numbers took 1.07 GB): this keeps a
/// load under about 600 MB whatever the text (a file of only `0,` at the
/// 64 MiB cap would have taken 9 GB). A full TP run's x86 database has
/// 0.64 million (12,653 entries, 7.6 MB; zen5 guest, 2026-11-28).
pub const MAX_NODES: usize = 4_000_000;

/// An upper bound of the YAML nodes of `text` (scalars, sequences,
/// mappings, their ends), counted on the text, not parsed: a node ends at
/// a line break or at one of `,:[]{}-`, so their count bounds it.
pub fn nodes(text: &str) -> usize {
    text.bytes()
        .filter(|b| matches!(b, b'\n' | b',' | b':' | b'[' | b']' | b'{' | b'}' | b'-'))
        .count()
}

/// Why `text` is too large to parse, if it is: more than [`MAX_NODES`]
/// nodes.
pub fn too_many_nodes(text: &str) -> Option<String> {
    let n = nodes(text);
    (n > MAX_NODES).then(|| {
        format!(
            "about {n} YAML nodes, more than the {MAX_NODES} winic parses in one file (a full \
             TP run of every x86 form writes 0.64 million; the parser holds them all at once)"
        )
    })
}

/// The first YAML anchor (`&name`) or alias (`*name`) of `text`, as
/// (line, column, the token), both counted from 1; `None` when it has
/// none. Neither winic nor WINIC (LLVM's YAML writer) writes them, and an
/// alias is expanded by the parser each time it is used, so a database
/// with one is refused rather than expanded.
///
/// A scan of the text, not a parser: an `&` or `*` counts where a YAML
/// node can begin (after the indentation, `- `, `? `, `: `, `[`, `{`,
/// `,`, a tag, or `---`), outside quoted scalars, comments and block
/// scalars (`|`, `>`). Inside a plain scalar (`name: a*b`) they are
/// text, as YAML reads them.
pub fn anchor_or_alias(text: &str) -> Option<(usize, usize, String)> {
    let mut quote: Option<char> = None;
    let mut flow = 0usize;
    // Indentation of the line that opened a block scalar, while in one.
    let mut block_scalar: Option<usize> = None;
    for (n, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(opened) = block_scalar {
            if line.trim().is_empty() || indent > opened {
                continue;
            }
            block_scalar = None;
        }
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut at_node = quote.is_none();
        let mut i = 0;
        if quote.is_none() && (line.starts_with("---") || line.starts_with("...")) {
            if line.starts_with("...") {
                continue;
            }
            i = 3;
        }
        while i < chars.len() {
            let (col, c) = chars[i];
            let next = chars.get(i + 1).map(|&(_, c)| c);
            i += 1;
            if let Some(q) = quote {
                match (q, c) {
                    ('"', '\\') => i += 1,
                    ('\'', '\'') if next == Some('\'') => i += 1,
                    _ if c == q => quote = None,
                    _ => {}
                }
                continue;
            }
            if c == ' ' || c == '\t' {
                continue;
            }
            if c == '#' && (col == 0 || line[..col].ends_with([' ', '\t'])) {
                break;
            }
            if at_node {
                match c {
                    '&' | '*' => {
                        let token: String = line[col..]
                            .chars()
                            .take_while(|c| !matches!(c, ' ' | '\t' | ',' | ']' | '}'))
                            .collect();
                        return Some((n + 1, col + 1, token));
                    }
                    '"' | '\'' => {
                        quote = Some(c);
                        at_node = false;
                    }
                    '-' | '?' if spaced(next) => {}
                    '[' | '{' => flow += 1,
                    ']' | '}' => {
                        flow = flow.saturating_sub(1);
                        at_node = false;
                    }
                    '|' | '>' if flow == 0 => {
                        block_scalar = Some(indent);
                        break;
                    }
                    '!' => {
                        // A tag: the node follows it.
                        while i < chars.len() && !matches!(chars[i].1, ' ' | '\t') {
                            i += 1;
                        }
                    }
                    _ => at_node = false,
                }
                continue;
            }
            // In a scalar, or after one: what ends it and starts a node.
            match c {
                ':' if spaced(next) || (flow > 0 && matches!(next, Some(',' | ']' | '}'))) => {
                    at_node = true
                }
                ',' if flow > 0 => at_node = true,
                '[' | '{' if flow > 0 => {
                    flow += 1;
                    at_node = true;
                }
                ']' | '}' if flow > 0 => flow -= 1,
                _ => {}
            }
        }
    }
    None
}

/// Whether `c` (the character after an indicator) ends it: a blank or the
/// line's end.
fn spaced(c: Option<char>) -> bool {
    c.is_none_or(|c| c == ' ' || c == '\t')
}

/// The forms that have more than one entry, each with the 1-based
/// positions of its entries, in the order of their first entry.
pub fn duplicates(entries: &[Entry]) -> Vec<(String, Vec<usize>)> {
    let mut at: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (k, e) in entries.iter().enumerate() {
        at.entry(&e.llvm_name).or_default().push(k + 1);
    }
    let mut dup: Vec<(String, Vec<usize>)> = at
        .into_iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    dup.sort_by_key(|(_, v)| v[0]);
    dup
}

/// [`duplicates`] in words, at most five forms named: "2 forms have more
/// than one entry: ADD64rr (entries 1 and 4), SUB64rr (entries 2, 5 and
/// 9)".
pub fn describe_duplicates(dup: &[(String, Vec<usize>)]) -> String {
    let count = match dup.len() {
        1 => "1 form has".to_string(),
        n => format!("{n} forms have"),
    };
    let mut parts: Vec<String> = dup
        .iter()
        .take(5)
        .map(|(name, at)| {
            let s: Vec<String> = at.iter().map(usize::to_string).collect();
            let (last, rest) = s.split_last().expect("a duplicate has two entries");
            format!("{name} (entries {} and {last})", rest.join(", "))
        })
        .collect();
    if dup.len() > 5 {
        parts.push(format!("and {} more forms", dup.len() - 5));
    }
    format!("{count} more than one entry: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_and_aliases_are_found_where_a_node_begins() {
        let found = anchor_or_alias;
        // The issue's alias bomb: an anchored entry, then its aliases.
        let bomb = "---\n- &e\n  llvmName: ZZ\n- *e\n...\n";
        assert_eq!(found(bomb), Some((2, 3, "&e".into())));
        assert_eq!(found("- llvmName: A\n- *e\n"), Some((2, 3, "*e".into())));
        assert_eq!(found("a: *x\n"), Some((1, 4, "*x".into())));
        assert_eq!(found("ops: [*r, b]\n"), Some((1, 7, "*r".into())));
        assert_eq!(
            found("ops:\n  - {class: r, name: *n}\n"),
            Some((2, 22, "*n".into()))
        );
        assert_eq!(found("--- &d\n- a\n"), Some((1, 5, "&d".into())));
        assert_eq!(found("a: !!map &m {}\n"), Some((1, 10, "&m".into())));
        // PyYAML's anchors for a shared object.
        assert_eq!(
            found("- &id001\n  a: 1\n- *id001\n"),
            Some((1, 3, "&id001".into()))
        );
    }

    #[test]
    fn text_that_only_looks_like_an_alias_is_not_one() {
        for text in [
            "name: a*b\n",
            "name: x & y\n",
            "name: \"*quoted\"\n",
            "name: '&quoted'\n",
            "name: 'it''s *not'\n",
            "name: \"a \\\" *b\"\n",
            "# *a comment\n- a # &another\n",
            "name: |\n  *block text\n  &more\nnext: 1\n",
            "ops: [a*b, \"*c\"]\n",
            "---\n- llvmName: VFMADD231PDZr\n  name: vfmadd231pd\n  operands: []\n...\n",
            "name: \"multi\n  *line\"\n",
        ] {
            assert_eq!(anchor_or_alias(text), None, "{text:?}");
        }
    }

    #[test]
    fn duplicates_are_named_with_their_positions() {
        use crate::db::fixtures::entry;
        let entries: Vec<Entry> = ["A", "B", "A", "C", "B", "A"].map(entry).into();
        let dup = duplicates(&entries);
        assert_eq!(
            dup,
            vec![("A".into(), vec![1, 3, 6]), ("B".into(), vec![2, 5])]
        );
        assert_eq!(
            describe_duplicates(&dup),
            "2 forms have more than one entry: A (entries 1, 3 and 6), B (entries 2 and 5)"
        );
        assert!(duplicates(&entries[..2]).is_empty());
    }
}
