//! The page's pictures, drawn as SVG by winic (no plotting library at
//! view time): for each database after the first, against the first, the
//! distribution of its throughput and latency relative to the first's,
//! and per extension the share of forms whose values differ by more than
//! 10%.

use super::escape;
use serde_json::Value;
use std::collections::BTreeMap;

/// Changes relative to the first database, bucketed: upper bounds of each
/// bucket (the last is open).
const BUCKETS: [(f64, &str); 9] = [
    (-0.5, "< -50%"),
    (-0.2, "-50..-20%"),
    (-0.1, "-20..-10%"),
    (-0.05, "-10..-5%"),
    (0.05, "±5%"),
    (0.1, "5..10%"),
    (0.2, "10..20%"),
    (0.5, "20..50%"),
    (f64::INFINITY, "> 50%"),
];

/// A form's value differs beyond this, relative (as `winic compare`'s
/// default threshold).
const DIFFERS: f64 = 0.10;

/// The bucket of a change (+0.25: 25% slower than the first database).
fn bucket(change: f64) -> usize {
    BUCKETS
        .iter()
        .position(|&(upper, _)| change < upper)
        .unwrap_or(BUCKETS.len() - 1)
}

/// (first database's value, other's) of value `k` (0 throughput, 1
/// latency) of every form both databases have.
fn pairs(data: &Value, other: usize, k: usize) -> Vec<(String, f64, f64)> {
    let rows = data["rows"].as_array().map_or(&[][..], |r| r.as_slice());
    rows.iter()
        .filter_map(|r| {
            let a = r["v"][0][k].as_f64()?;
            let b = r["v"][other][k].as_f64()?;
            (a > 0.0).then(|| (r["ext"].as_str().unwrap_or("").to_string(), a, b))
        })
        .collect()
}

/// A bar chart: `bars` (label, count) as vertical bars, with a title.
fn histogram(title: &str, bars: &[(&str, usize)]) -> String {
    let (w, h, left, bottom) = (60.0, 160.0, 40.0, 40.0);
    let most = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1) as f64;
    let width = left + w * bars.len() as f64 + 10.0;
    let mut s = format!(
        "<svg class=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{}\" role=\"img\"><title>{}</title>\n<text x=\"4\" y=\"14\" \
         class=\"title\">{}</text>\n",
        h + bottom + 24.0,
        escape(title),
        escape(title)
    );
    for (i, (label, n)) in bars.iter().enumerate() {
        let bh = h * *n as f64 / most;
        let x = left + w * i as f64;
        let y = 24.0 + h - bh;
        s.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\"{}><title>{}: \
             {n}</title></rect>\n<text x=\"{:.1}\" y=\"{:.1}\" class=\"count\">{n}</text>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"label\">{}</text>\n",
            x + 4.0,
            w - 8.0,
            if *label == "±5%" {
                " class=\"same\""
            } else {
                ""
            },
            escape(label),
            x + w / 2.0,
            y - 3.0,
            x + w / 2.0,
            24.0 + h + 16.0,
            escape(label)
        ));
    }
    s.push_str("</svg>\n");
    s
}

/// Horizontal bars: per extension (most forms first, up to 25), the share
/// of its forms that differ.
fn shares(title: &str, per_ext: &BTreeMap<String, (usize, usize)>) -> String {
    let mut exts: Vec<(&String, &(usize, usize))> = per_ext.iter().collect();
    exts.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    exts.truncate(25);
    let (row, left, w) = (16.0, 170.0, 300.0);
    let mut s = format!(
        "<svg class=\"shares\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" \
         height=\"{}\" role=\"img\"><title>{}</title>\n<text x=\"4\" y=\"14\" \
         class=\"title\">{}</text>\n",
        left + w + 120.0,
        24.0 + row * exts.len() as f64 + 8.0,
        escape(title),
        escape(title)
    );
    for (i, (ext, &(forms, differing))) in exts.iter().enumerate() {
        let y = 24.0 + row * i as f64;
        let share = differing as f64 / forms.max(1) as f64;
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"ext\">{}</text>\n<rect x=\"{left}\" \
             y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}: {differing} of {forms} \
             values differ</title></rect>\n<text x=\"{:.1}\" y=\"{:.1}\" class=\"share\">{:.0}% \
             ({differing} of {forms})</text>\n",
            left - 6.0,
            y + 12.0,
            escape(ext),
            y + 2.0,
            (w * share).max(0.5),
            row - 4.0,
            escape(ext),
            left + w * share + 6.0,
            y + 12.0,
            100.0 * share
        ));
    }
    s.push_str("</svg>\n");
    s
}

/// Every picture of the page's `data`: nothing to draw for one database.
pub fn pictures(data: &Value) -> String {
    let dbs = data["dbs"].as_array().map_or(&[][..], |d| d.as_slice());
    if dbs.len() < 2 {
        return "<p>One database: nothing to compare.</p>\n".into();
    }
    let label = |i: usize| dbs[i]["label"].as_str().unwrap_or("?").to_string();
    let mut s = String::new();
    for other in 1..dbs.len() {
        s.push_str(&format!(
            "<h2>{} against {}</h2>\n<div class=\"pictures\">\n",
            escape(&label(other)),
            escape(&label(0))
        ));
        let mut per_ext: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (k, what) in [(0, "throughput"), (1, "latency")] {
            let p = pairs(data, other, k);
            let mut counts = [0usize; BUCKETS.len()];
            for (_, a, b) in &p {
                counts[bucket((b - a) / a)] += 1;
            }
            let bars: Vec<(&str, usize)> = BUCKETS
                .iter()
                .zip(counts)
                .map(|(&(_, l), n)| (l, n))
                .collect();
            s.push_str(&histogram(
                &format!(
                    "{what}: {} relative to {} ({} forms)",
                    label(other),
                    label(0),
                    p.len()
                ),
                &bars,
            ));
            for (ext, a, b) in &p {
                let d = (b - a).abs() > DIFFERS * a && (b - a).abs() > 0.01 + 1e-9;
                let e = per_ext.entry(ext.clone()).or_default();
                e.0 += 1;
                e.1 += usize::from(d);
            }
        }
        s.push_str(&shares(
            &format!(
                "values (throughput and latency) differing by more than {:.0}%, per extension",
                100.0 * DIFFERS
            ),
            &per_ext,
        ));
        s.push_str("</div>\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changes_fall_in_their_buckets() {
        assert_eq!(BUCKETS[bucket(0.0)].1, "±5%");
        assert_eq!(BUCKETS[bucket(-0.6)].1, "< -50%");
        assert_eq!(BUCKETS[bucket(0.15)].1, "10..20%");
        assert_eq!(BUCKETS[bucket(3.0)].1, "> 50%");
    }

    #[test]
    fn pictures_count_each_pair_of_values_once() {
        let data = json!({
            "dbs": [{"label": "zen4"}, {"label": "zen5"}],
            "rows": [
                {"ext": "AVX512", "v": [[1.0, 4.0], [0.4, 4.0]]},
                {"ext": "AVX512", "v": [[1.0, 3.0], [1.02, 3.0]]},
                {"ext": "base", "v": [[0.25, 1.0], null]},
            ]
        });
        let s = pictures(&data);
        assert!(s.contains("zen5 against zen4"), "{s}");
        assert!(
            s.contains("throughput: zen5 relative to zen4 (2 forms)"),
            "{s}"
        );
        assert!(s.contains("&lt; -50%: 1</title>"), "{s}");
        assert!(s.contains("AVX512: 1 of 4 values differ"), "{s}");
        assert!(!s.contains("base:"), "{s}");
        assert!(pictures(&json!({"dbs": [{"label": "a"}], "rows": []})).contains("nothing"));
    }
}
