//! Loads and stores together: whether a store takes one of the address
//! units the loads issue to.
//!
//! The general-purpose load alone gives the loads per cycle (`N_L`), the
//! store alone the stores per cycle (`N_S`); then `N_L` loads and `N_S`
//! stores per unit run together. On units of their own the mix takes as
//! long as the slower side alone (one cycle a unit); when every access
//! needs one of `A` address units it takes `(N_L + N_S) / A`. Measured on
//! the zen5 guest (`winic MAN`, 2026-11-29): 8 loads 2.06 cycles, 4
//! stores 2.00, both together 3.08: 12 accesses on 4 units, the loads'.
//! The result becomes the loads' and stores' inferred ports (`L0`…,
//! `S0`…), which `winic export --osaca` builds its memory ports from.

use super::{measure_bodies, mixed};
use crate::arch::Target;
use crate::db::PortUse;
use crate::exec::run::Options;
use crate::isa::{Instr, Isa};

/// What the mix of loads and stores showed.
#[derive(Clone, Debug)]
pub struct Units {
    /// The load and its cycles per load alone.
    pub load: (Instr, f64),
    /// The store and its cycles per store alone.
    pub store: (Instr, f64),
    /// Loads and stores per cycle alone: the load and store ports.
    pub ports: (usize, usize),
    /// Cycles per unit of `ports.0` loads and `ports.1` stores together.
    pub together: f64,
}

impl Units {
    /// The address units every access takes, when a store takes one of
    /// the loads' (the mix is more than 10% slower than its slower side
    /// alone, and within 10% of all accesses on the load ports); `None`
    /// when the stores have units of their own.
    pub fn shared(&self) -> Option<usize> {
        let (l, s) = self.ports;
        let apart = (l as f64 * self.load.1).max(s as f64 * self.store.1);
        // Every access in one load's slot: l of them a cycle.
        let shared = (l + s) as f64 * self.load.1;
        (self.together > apart * 1.1 && (self.together - shared).abs() < shared * 0.1).then_some(l)
    }

    /// The load's and the store's ports: a load a cycle on one of the
    /// `L` ports, a store one on the `S` ports and, when the units are
    /// shared, one on the `L` ports too.
    pub fn inferred_ports(&self) -> Vec<(Instr, Vec<PortUse>)> {
        let names = |prefix: &str, n: usize| (0..n).map(|i| format!("{prefix}{i}")).collect();
        let round = |x: f64| (x * 100.0).round() / 100.0;
        let (l, s) = self.ports;
        let load = PortUse {
            cycles: round(self.load.1 * l as f64),
            ports: names("L", l),
        };
        let mut store = vec![PortUse {
            cycles: round(self.store.1 * s as f64),
            ports: names("S", s),
        }];
        if self.shared().is_some() {
            store.push(PortUse {
                cycles: 1.0,
                ports: names("L", l),
            });
        }
        vec![(self.load.0, vec![load]), (self.store.0, store)]
    }

    /// The report's lines.
    pub fn render(&self) -> String {
        let (l, s) = self.ports;
        format!(
            "loads and stores: {} {:.2} cycles alone ({l} a cycle), {} {:.2} ({s} a cycle); \
             {l} and {s} together {:.2} cycles: {}\n",
            self.load.0.name(),
            self.load.1,
            self.store.0.name(),
            self.store.1,
            self.together,
            match self.shared() {
                Some(a) => format!(
                    "a store takes one of the {a} address units of the loads (ports L*: \
                     {} accesses on {a})",
                    l + s
                ),
                None => "stores have units of their own".into(),
            }
        )
    }
}

/// Measures the general-purpose load and store of `t`'s arch alone, then
/// together, when `forms` holds both; `None` when it does not, when one
/// cannot be built or measured (noise, a replay of a run that did not
/// measure them).
pub fn measure(t: &dyn Target, forms: &[Instr], opts: &Options) -> Option<Units> {
    let (load, store) = crate::export::memory::general_load_and_store(t.arch());
    let isa = Isa::get(t.arch());
    let (load, store) = (isa.instr(load)?, isa.instr(store)?);
    let has = |f: Instr| forms.iter().any(|x| x.opcode() == f.opcode());
    if !has(load) || !has(store) {
        return None;
    }
    let alone = [mixed(t, &[(load, 8)])?, mixed(t, &[(store, 8)])?];
    let bodies: Vec<_> = alone.iter().map(|(b, _)| (b.clone(), b.len())).collect();
    let got = measure_bodies(t, &bodies, opts, &mut |_| {});
    let (tl, ts) = (got[0].0.clone().ok()?, got[1].0.clone().ok()?);
    let per_cycle = |c: f64| ((1.0 / c).round() as usize).clamp(1, 8);
    let ports = (per_cycle(tl), per_cycle(ts));
    let (body, units) = mixed(t, &[(load, ports.0), (store, ports.1)])?;
    let together = measure_bodies(t, &[(body, units)], opts, &mut |_| {})
        .remove(0)
        .0
        .ok()?;
    Some(Units {
        load: (load, tl),
        store: (store, ts),
        ports,
        together,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::isa::Arch;

    /// The general-purpose load and store at `tl` and `ts` cycles alone,
    /// `ports` a cycle, `together` a unit of both.
    pub(in crate::mode::ports) fn units(
        tl: f64,
        ts: f64,
        ports: (usize, usize),
        together: f64,
    ) -> Units {
        let isa = Isa::get(Arch::X86_64);
        Units {
            load: (isa.instr("MOV64rm").unwrap(), tl),
            store: (isa.instr("MOV64mr").unwrap(), ts),
            ports,
            together,
        }
    }

    #[test]
    fn zen5s_mix_shares_the_loads_address_units() {
        // 4 loads and 2 stores a unit: 1.0 apart, 1.5 on 4 shared units.
        let u = units(0.258, 0.5, (4, 2), 1.54);
        assert_eq!(u.shared(), Some(4));
        let ports = u.inferred_ports();
        assert_eq!(ports[1].1.len(), 2, "{ports:?}");
        assert_eq!(ports[1].1[1].ports, ["L0", "L1", "L2", "L3"]);
        assert!(u.render().contains("one of the 4 address units"));
    }

    #[test]
    fn stores_with_units_of_their_own_add_nothing_to_the_loads() {
        // Three loads and two stores a cycle on five units (Golden Cove).
        let u = units(0.333, 0.5, (3, 2), 1.02);
        assert_eq!(u.shared(), None);
        assert_eq!(u.inferred_ports()[1].1.len(), 1);
        // Slower than apart, but not as all on the load ports: noise, or
        // something else; not called shared.
        assert_eq!(units(0.333, 0.5, (3, 2), 1.3).shared(), None);
    }
}
