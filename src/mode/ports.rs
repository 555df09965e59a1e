//! Port conflicts (`winic ports`): the experiments port inference starts
//! from. Every pair of the given forms runs interleaved, one copy of each
//! on registers of their own, timed as TP times a body, beside each form
//! alone. Under the model port-mapping methods share (PMEvo, Palmed,
//! uops.info: a form is micro-ops, each issued to one port of its set,
//! each port taking one a cycle; [`bottleneck`]), a pair that takes longer
//! together than the slower form alone shares ports with it, and how much
//! longer says how many.

use super::common::{early_skip, implicit_dependency, pair_of_kernels, per_copy};
use super::tp::interleaved;
use crate::arch::{Inst, Target};
use crate::error::Error;
use crate::exec::run::{batch_costs, Clock, Options};
use crate::isa::{Arch, Instr};
use crate::kernel::{self, shape};

/// The most forms one run takes: their pairs grow as the square (64 forms
/// are 2016 pairs, a few minutes).
pub const MAX_FORMS: usize = 64;

/// `winic ports`: selects the forms (`names`, or those `filter` matches),
/// at least two and at most [`MAX_FORMS`], and measures them
/// ([`run`]) on `cpu` with `clock`.
pub fn measure(
    arch: Arch,
    names: &[String],
    filter: Option<&str>,
    cpu: Option<usize>,
    clock: Clock,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Conflicts, Error> {
    let forms = super::select_forms(arch, names, filter, None, None)?;
    if forms.len() < 2 || forms.len() > MAX_FORMS {
        return Err(Error::BadInput(format!(
            "winic ports measures every pair of 2 to {MAX_FORMS} forms; {} selected (name them \
             with -i, or narrow --filter)",
            forms.len()
        )));
    }
    let t = crate::arch::target(arch);
    let opts = super::measuring_options(t, clock, cpu)?;
    Ok(run(t, &forms, &opts, progress))
}

/// Cycles per round of a multiset of micro-ops, each `(ports, count)`: a
/// bit mask of the ports it may issue to and how many of it a round has;
/// every port issues one micro-op a cycle. The busiest set of ports
/// decides: the most, over every set S, of the micro-ops that can only go
/// to S, divided by the ports in S (the max-flow bound uops.info and
/// PMEvo compute).
pub fn bottleneck(uops: &[(u32, f64)]) -> f64 {
    let all = uops.iter().fold(0u32, |m, u| m | u.0);
    let mut most: f64 = 0.0;
    let mut s = all;
    while s != 0 {
        let load: f64 = uops.iter().filter(|u| u.0 & !s == 0).map(|u| u.1).sum();
        most = most.max(load / f64::from(s.count_ones()));
        s = (s - 1) & all;
    }
    most
}

/// How much of the time two forms take in turn they take together, 0 to
/// 1: 0 when the pair runs as fast as the slower form alone (nothing
/// shared), 1 when it takes the sum of both (everything shared).
pub fn shared_share(a: f64, b: f64, together: f64) -> f64 {
    let (slower, serial) = (a.max(b), a + b);
    if serial <= slower {
        return 0.0;
    }
    ((together - slower) / (serial - slower)).clamp(0.0, 1.0)
}

/// The ports of one micro-op a cycle: `1 / cycles` when that is within 10%
/// of a whole number from 1 to 12, else `None` (the form is more than one
/// micro-op, or not pipelined).
fn single_uop_ports(cycles: f64) -> Option<u32> {
    let n = 1.0 / cycles;
    let whole = n.round();
    ((1.0..=12.0).contains(&whole) && (n - whole).abs() <= 0.1 * whole).then_some(whole as u32)
}

/// The ports two single-micro-op forms of `pa` and `pb` ports share, from
/// their time together (cycles per pair): together they issue 2 micro-ops
/// on `2 / together` ports at most ([`bottleneck`]), so `pa + pb` minus
/// those; `None` when the pair ran as fast as the slower form allows (then
/// the union is at least `2 / together`, and nothing is known of it).
fn shared_ports(pa: u32, pb: u32, together: f64) -> Option<u32> {
    let slower = 1.0 / f64::from(pa.min(pb));
    if together <= slower * 1.1 {
        return None;
    }
    let union = (2.0 / together).round() as u32;
    Some((pa + pb).saturating_sub(union).min(pa.min(pb)))
}

/// One form alone.
#[derive(Clone, Debug)]
pub struct Single {
    /// The form.
    pub form: Instr,
    /// Cycles per instruction, or why there is none.
    pub cycles: Result<f64, String>,
    /// Its timings were noisy.
    pub noisy: bool,
}

/// One pair of forms together.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The two forms (indices into the singles).
    pub a: usize,
    /// The second form.
    pub b: usize,
    /// Cycles per pair (one of each), or why there is none.
    pub cycles: Result<f64, String>,
    /// Its timings were noisy.
    pub noisy: bool,
    /// The copies of each form in the body.
    pub copies: usize,
}

/// What `winic ports` found.
#[derive(Clone, Debug)]
pub struct Conflicts {
    /// Each form alone.
    pub singles: Vec<Single>,
    /// Each pair of measured forms.
    pub pairs: Vec<Pair>,
}

/// What a measured body is: form k alone, or pair p.
#[derive(Clone, Copy)]
enum Slot {
    Single(usize),
    Pair(usize),
}

/// Measures `forms` alone and every pair of them together; `progress(done,
/// total)` after each kernel.
pub fn run(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Conflicts {
    // Alone: the TP body (up to 12 independent copies).
    let mut singles: Vec<Single> = Vec::new();
    let mut bodies: Vec<(Slot, Vec<Inst>)> = Vec::new();
    for &form in forms {
        let why = early_skip(t, form, false).or_else(|| {
            (!implicit_dependency(t, form).is_empty()).then(|| {
                "reads and writes a register implicitly (EFLAGS of adc): its copies depend on \
                 each other"
                    .to_string()
            })
        });
        let body = match why {
            Some(w) => Err(w),
            None => shape::throughput(t, form, shape::COPIES).map_err(|e| e.to_string()),
        };
        let k = singles.len();
        match body {
            Ok(b) => {
                bodies.push((Slot::Single(k), b));
                singles.push(Single {
                    form,
                    cycles: Err("not measured".into()),
                    noisy: false,
                });
            }
            Err(w) => singles.push(Single {
                form,
                cycles: Err(w),
                noisy: false,
            }),
        }
    }
    // Together: every pair of forms that have a body alone.
    let runnable: Vec<usize> = bodies
        .iter()
        .filter_map(|b| match b.0 {
            Slot::Single(k) => Some(k),
            Slot::Pair(_) => None,
        })
        .collect();
    let mut pairs: Vec<Pair> = Vec::new();
    for (x, &a) in runnable.iter().enumerate() {
        for &b in &runnable[x + 1..] {
            match interleaved(t, singles[a].form, singles[b].form) {
                Some(body) => {
                    pairs.push(Pair {
                        a,
                        b,
                        cycles: Err("not measured".into()),
                        noisy: false,
                        copies: body.len() / 2,
                    });
                    bodies.push((Slot::Pair(pairs.len() - 1), body));
                }
                None => pairs.push(Pair {
                    a,
                    b,
                    cycles: Err("no registers left to interleave them".into()),
                    noisy: false,
                    copies: 0,
                }),
            }
        }
    }
    let total = bodies.len();
    let mut done = 0;
    let make = |i: usize| pair_of_kernels(t, &bodies[i].1);
    let width = |i: usize| kernel::widest_bits(&bodies[i].1);
    batch_costs(t, total, &make, &width, opts, &mut |i, got| {
        let (slot, body) = &bodies[i];
        let (value, noisy) = match got {
            Ok(c) if c.positive() => {
                let copies = match slot {
                    Slot::Single(_) => body.len(),
                    Slot::Pair(_) => body.len() / 2,
                };
                (Ok(per_copy(&c, body.len(), copies)), c.noisy())
            }
            Ok(_) => (
                Err("the unroll difference was not positive: noise".into()),
                true,
            ),
            Err(e) => (Err(e.to_string()), false),
        };
        match *slot {
            Slot::Single(k) => (singles[k].cycles, singles[k].noisy) = (value, noisy),
            Slot::Pair(p) => (pairs[p].cycles, pairs[p].noisy) = (value, noisy),
        }
        done = (done + 1).min(total);
        progress(done, total);
    });
    Conflicts { singles, pairs }
}

impl Conflicts {
    /// The table: each form alone, then each pair with its time together,
    /// the slower form's alone, both in turn, the shared share and, for
    /// single-micro-op forms, the shared ports.
    pub fn render(&self) -> String {
        let mut s = String::from("alone (cycles per instruction):\n");
        let width = self
            .singles
            .iter()
            .map(|x| x.form.name().len())
            .max()
            .unwrap_or(0);
        for x in &self.singles {
            let v = match &x.cycles {
                Ok(c) => format!("{c:.3}{}", if x.noisy { " (noisy)" } else { "" }),
                Err(w) => format!("-  {w}"),
            };
            s.push_str(&format!("  {:width$}  {v}\n", x.form.name()));
        }
        s.push_str(
            "pairs (cycles per pair, one of each; `shared`: how much of the time in turn they \
             take together, 0% nothing, 100% everything):\n",
        );
        let pw = 2 * width + 3;
        s.push_str(&format!(
            "  {:pw$}  {:>8}  {:>8}  {:>8}  {:>6}  verdict\n",
            "pair", "together", "slower", "in turn", "shared"
        ));
        for p in &self.pairs {
            let (a, b) = (&self.singles[p.a], &self.singles[p.b]);
            let name = format!("{} + {}", a.form.name(), b.form.name());
            let line = match (&a.cycles, &b.cycles, &p.cycles) {
                (Ok(ta), Ok(tb), Ok(tp)) => {
                    let share = shared_share(*ta, *tb, *tp);
                    let verdict = if share < 0.15 {
                        "independent"
                    } else if share > 0.85 {
                        "the same resources"
                    } else {
                        "partly shared"
                    };
                    let ports = match (single_uop_ports(*ta), single_uop_ports(*tb)) {
                        (Some(pa), Some(pb)) => match shared_ports(pa, pb, *tp) {
                            Some(k) => {
                                format!("; as single micro-ops on {pa} and {pb} ports: {k} shared")
                            }
                            None => format!("; as single micro-ops on {pa} and {pb} ports"),
                        },
                        _ => String::new(),
                    };
                    let noisy = if a.noisy || b.noisy || p.noisy {
                        " (noisy)"
                    } else {
                        ""
                    };
                    format!(
                        "{tp:>8.3}  {:>8.3}  {:>8.3}  {:>5.0}%  {verdict}{ports}{noisy}",
                        ta.max(*tb),
                        ta + tb,
                        100.0 * share
                    )
                }
                (_, _, Err(w)) => format!("-  {w}"),
                _ => "-  a form has no value alone".to_string(),
            };
            s.push_str(&format!("  {name:pw$}  {line}\n"));
        }
        if let Some(m) = self.mapping() {
            s.push_str(&self.render_mapping(&m, width));
        }
        s
    }

    /// The mapping's section: each form's ports, then every pair's
    /// measured and predicted time, the worst first.
    fn render_mapping(&self, m: &Mapping, width: usize) -> String {
        let mut s = format!(
            "a port mapping of the {} forms that run as one micro-op, fitted to their {} pairs \
             (ports numbered 0-{}, not the vendor's names): {} ports, root mean square error \
             {:.1}%. One mapping that fits, not the only one: a pair that runs as fast as its \
             slower form does not tell whether the two share a port\n",
            m.sets.len(),
            m.residuals.len(),
            m.ports - 1,
            m.ports,
            100.0 * m.rms()
        );
        for (k, mask) in &m.sets {
            let ports: Vec<String> = (0..m.ports)
                .filter(|p| mask & (1 << p) != 0)
                .map(|p| p.to_string())
                .collect();
            s.push_str(&format!(
                "  {:width$}  {{{}}}\n",
                self.singles[*k].form.name(),
                ports.join(",")
            ));
        }
        s.push_str("the pairs against it (cycles per pair: measured, predicted, error), the worst first:\n");
        let mut rows = m.residuals.clone();
        rows.sort_by(|x, y| {
            ((y.2 - y.1) / y.1)
                .abs()
                .total_cmp(&((x.2 - x.1) / x.1).abs())
        });
        let pw = 2 * width + 3;
        for (p, measured, predicted) in rows {
            let pair = &self.pairs[p];
            let name = format!(
                "{} + {}",
                self.singles[pair.a].form.name(),
                self.singles[pair.b].form.name()
            );
            s.push_str(&format!(
                "  {name:pw$}  {measured:>8.3}  {predicted:>8.3}  {:>+6.1}%\n",
                100.0 * (predicted - measured) / measured
            ));
        }
        s
    }
}

/// The [`bottleneck`] of one micro-op on ports `a` and one on `b`, in
/// closed form: each alone, or both on their ports together.
fn two_uops(a: u32, b: u32) -> f64 {
    let per = |m: u32| 1.0 / f64::from(m.count_ones().max(1));
    per(a).max(per(b)).max(2.0 * per(a | b))
}

/// Masks of `width` ports out of `ports` (all of them, in increasing
/// order).
fn port_sets(width: u32, ports: u32) -> Vec<u32> {
    (0u32..(1 << ports))
        .filter(|m| m.count_ones() == width)
        .collect()
}

/// The squared relative error of the pairs `involving` (indices into
/// `pairs`) under `sets`: each pair `(a, b, cycles)` predicted as the
/// [`bottleneck`] of one micro-op of each.
fn pair_error(sets: &[u32], pairs: &[(usize, usize, f64)], involving: &[usize]) -> f64 {
    involving
        .iter()
        .map(|&p| {
            let (a, b, m) = pairs[p];
            let e = (two_uops(sets[a], sets[b]) - m) / m;
            e * e
        })
        .sum()
}

/// The port sets of single-micro-op forms that fit their pairs best:
/// form k issues to `widths[k]` of `ports` ports; `pairs` are `(a, b,
/// cycles per pair)`. Coordinate descent (each form in turn takes the set
/// that fits its pairs best, until none moves) from `ports` starts, each
/// giving form k its ports rotated by a different step; the best fit and
/// its summed squared relative error. Ports are numbered, not named: any
/// renumbering fits as well.
pub fn fit_ports(widths: &[u32], pairs: &[(usize, usize, f64)], ports: u32) -> (Vec<u32>, f64) {
    let n = widths.len();
    let candidates: Vec<Vec<u32>> = widths.iter().map(|&w| port_sets(w, ports)).collect();
    let involving: Vec<Vec<usize>> = (0..n)
        .map(|k| {
            (0..pairs.len())
                .filter(|&p| pairs[p].0 == k || pairs[p].1 == k)
                .collect()
        })
        .collect();
    let all: Vec<usize> = (0..pairs.len()).collect();
    let rotate = |mask: u32, by: u32| {
        let full = (1u32 << ports) - 1;
        ((mask << by) | (mask >> (ports - by))) & full
    };
    let mut best: (Vec<u32>, f64) = (Vec::new(), f64::INFINITY);
    for start in 0..ports {
        let mut sets: Vec<u32> = (0..n)
            .map(|k| rotate((1u32 << widths[k]) - 1, (k as u32 * start) % ports))
            .collect();
        loop {
            let mut moved = false;
            for k in 0..n {
                let mut here = (sets[k], pair_error(&sets, pairs, &involving[k]));
                for &c in &candidates[k] {
                    sets[k] = c;
                    let e = pair_error(&sets, pairs, &involving[k]);
                    if e < here.1 - 1e-12 {
                        here = (c, e);
                        moved = true;
                    }
                }
                sets[k] = here.0;
            }
            if !moved {
                break;
            }
        }
        let e = pair_error(&sets, pairs, &all);
        if e < best.1 {
            best = (sets, e);
        }
    }
    best
}

/// A port mapping fitted to the pairs of single-micro-op forms
/// ([`fit_ports`]).
#[derive(Clone, Debug)]
pub struct Mapping {
    /// Ports in the model.
    pub ports: u32,
    /// Each mapped form (index into the singles) and its port set.
    pub sets: Vec<(usize, u32)>,
    /// Each pair used (index into the pairs), measured and predicted
    /// cycles per pair.
    pub residuals: Vec<(usize, f64, f64)>,
}

impl Mapping {
    /// The root mean square of the pairs' relative errors.
    pub fn rms(&self) -> f64 {
        let n = self.residuals.len().max(1) as f64;
        let sum: f64 = self
            .residuals
            .iter()
            .map(|(_, m, p)| ((p - m) / m).powi(2))
            .sum();
        (sum / n).sqrt()
    }
}

/// The most ports a mapping has: the subsets of 8 ports are few enough
/// to try for every form.
const MAX_PORTS: u32 = 8;

impl Conflicts {
    /// The port mapping of the single-micro-op forms (time alone 1/N
    /// cycles, [`single_uop_ports`]) with at least one measured pair
    /// among them: from as many ports as the widest form has up to
    /// [`MAX_PORTS`], the fewest whose fit is within 2 points of relative
    /// error of the best. `None` with fewer than two such forms.
    pub fn mapping(&self) -> Option<Mapping> {
        let forms: Vec<(usize, u32)> = self
            .singles
            .iter()
            .enumerate()
            .filter_map(|(k, s)| Some((k, single_uop_ports(*s.cycles.as_ref().ok()?)?)))
            .collect();
        let at = |k: usize| forms.iter().position(|f| f.0 == k);
        let pairs: Vec<(usize, (usize, usize, f64))> = self
            .pairs
            .iter()
            .enumerate()
            .filter_map(|(p, x)| Some((p, (at(x.a)?, at(x.b)?, *x.cycles.as_ref().ok()?))))
            .filter(|(_, x)| x.2 > 0.0)
            .collect();
        let widest = forms.iter().map(|f| f.1).max()?;
        if forms.len() < 2 || pairs.is_empty() || widest > MAX_PORTS {
            return None;
        }
        let widths: Vec<u32> = forms.iter().map(|f| f.1).collect();
        let plain: Vec<(usize, usize, f64)> = pairs.iter().map(|x| x.1).collect();
        let fits: Vec<(u32, Vec<u32>, f64)> = (widest..=MAX_PORTS)
            .map(|p| {
                let (sets, e) = fit_ports(&widths, &plain, p);
                (p, sets, (e / plain.len() as f64).sqrt())
            })
            .collect();
        let best = fits.iter().map(|f| f.2).fold(f64::INFINITY, f64::min);
        let (ports, sets, _) = fits.into_iter().find(|f| f.2 <= best + 0.02)?;
        let residuals = pairs
            .iter()
            .map(|(p, (a, b, m))| (*p, *m, two_uops(sets[*a], sets[*b])))
            .collect();
        Some(Mapping {
            ports,
            sets: forms.iter().map(|f| f.0).zip(sets).collect(),
            residuals,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bottleneck of micro-ops on port sets: one port a cycle each,
    /// the busiest set deciding.
    #[test]
    fn bottleneck_is_the_busiest_set_of_ports() {
        // One micro-op on one port; on two ports; four on four.
        assert_eq!(bottleneck(&[(0b1, 1.0)]), 1.0);
        assert_eq!(bottleneck(&[(0b11, 1.0)]), 0.5);
        assert_eq!(bottleneck(&[(0b1111, 4.0)]), 1.0);
        // Two forms on the same two ports take the sum; on other ports
        // the slower's time.
        assert_eq!(bottleneck(&[(0b11, 1.0), (0b11, 1.0)]), 1.0);
        assert_eq!(bottleneck(&[(0b11, 1.0), (0b1100, 1.0)]), 0.5);
        // p0 only and p0/p1: the second moves to p1.
        assert_eq!(bottleneck(&[(0b01, 1.0), (0b11, 1.0)]), 1.0);
        assert_eq!(bottleneck(&[(0b01, 2.0), (0b11, 1.0)]), 2.0);
        // p0/p1 and p1/p2: three ports for two micro-ops.
        assert_eq!(bottleneck(&[(0b011, 1.0), (0b110, 1.0)]), 2.0 / 3.0);
        assert_eq!(bottleneck(&[]), 0.0);
    }

    /// The shared share: 0 at the slower form's time, 1 at the sum.
    #[test]
    fn shared_share_runs_from_the_slower_to_the_sum() {
        assert_eq!(shared_share(0.5, 0.5, 0.5), 0.0);
        assert_eq!(shared_share(0.5, 0.5, 1.0), 1.0);
        assert_eq!(shared_share(0.25, 1.0, 1.0), 0.0);
        assert!((shared_share(0.5, 0.5, 0.75) - 0.5).abs() < 1e-12);
        assert_eq!(shared_share(0.5, 0.5, 2.0), 1.0);
    }

    /// Single micro-op forms and the ports they share, as the bottleneck
    /// model gives the pair's time for every layout of up to 4 ports.
    #[test]
    fn shared_ports_invert_the_bottleneck() {
        for a in 1u32..16 {
            for b in 1u32..16 {
                let together = bottleneck(&[(a, 1.0), (b, 1.0)]);
                let (pa, pb) = (a.count_ones(), b.count_ones());
                assert_eq!(single_uop_ports(1.0 / f64::from(pa)), Some(pa));
                let shared = (a & b).count_ones();
                match shared_ports(pa, pb, together) {
                    Some(k) => assert_eq!(k, shared, "{a:04b} {b:04b}: {together}"),
                    // Only where the slower alone sets the pace.
                    None => assert!(
                        together <= 1.0 / f64::from(pa.min(pb)) * 1.1,
                        "{a:04b} {b:04b}"
                    ),
                }
            }
        }
        assert_eq!(single_uop_ports(0.7), None);
        assert_eq!(single_uop_ports(4.0), None);
    }

    /// The fit finds port sets that give every pair's time of a known
    /// layout (8 forms on 4 ports, from one port to all four), and the
    /// fewest ports that do: the measured times are the bottleneck's
    /// of that layout, so the best fit's error is 0.
    #[test]
    fn fitted_ports_reproduce_every_pair_of_a_known_layout() {
        let truth: [u32; 8] = [
            0b1111, 0b0010, 0b1001, 0b0101, 0b0100, 0b0011, 0b1000, 0b0110,
        ];
        let widths: Vec<u32> = truth.iter().map(|m| m.count_ones()).collect();
        let mut pairs = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                pairs.push((a, b, bottleneck(&[(truth[a], 1.0), (truth[b], 1.0)])));
            }
        }
        let (sets, error) = fit_ports(&widths, &pairs, 4);
        assert!(error < 1e-12, "{sets:?}: {error}");
        for (k, set) in sets.iter().enumerate() {
            assert_eq!(set.count_ones(), widths[k]);
        }
        for a in 1u32..64 {
            for b in 1u32..64 {
                let exact = bottleneck(&[(a, 1.0), (b, 1.0)]);
                assert!((two_uops(a, b) - exact).abs() < 1e-12, "{a:06b} {b:06b}");
            }
        }
        // Three ports cannot hold a form of four.
        assert!(port_sets(4, 3).is_empty());
    }
}
