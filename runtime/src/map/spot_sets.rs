//! Sets of spots and maps keyed by spot, kept as sorted vectors.
//!
//! A battle's regions and who stands where are a few dozen spots, built, filtered and
//! thrown away at every listing of a unit's choices: a sorted vector builds with one sort,
//! filters in place and looks up by halves without a node allocated per spot, where the
//! standard trees spent a fifth of a random skirmish on their nodes. Both iterate in spot
//! order, as `BTreeSet<Spot>` and `BTreeMap<Spot, _>` do, so a battle that walks them draws
//! and decides in the same order (property tests check them against the trees).

use super::Spot;

/// A set of spots in spot order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpotSet(Vec<Spot>);

impl SpotSet {
    /// An empty set.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// Whether `spot` is in the set.
    pub fn contains(&self, spot: &Spot) -> bool {
        self.0.binary_search(spot).is_ok()
    }

    /// Adds `spot`; false when it was already in.
    pub fn insert(&mut self, spot: Spot) -> bool {
        // Spots often come in order: the end is tried first.
        if self.0.last().is_none_or(|last| *last < spot) {
            self.0.push(spot);
            return true;
        }
        match self.0.binary_search(&spot) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, spot);
                true
            }
        }
    }

    /// Removes `spot`; false when it was not in.
    pub fn remove(&mut self, spot: &Spot) -> bool {
        match self.0.binary_search(spot) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    /// Keeps the spots `keep` holds for, asked in spot order.
    pub fn retain(&mut self, keep: impl FnMut(&Spot) -> bool) {
        self.0.retain(keep);
    }

    /// The spots in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Spot> {
        self.0.iter()
    }

    /// The spots in order, as a slice.
    pub fn as_slice(&self) -> &[Spot] {
        &self.0
    }

    /// The first spot.
    pub fn first(&self) -> Option<&Spot> {
        self.0.first()
    }

    /// How many spots.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The spots in both sets, in order.
    pub fn intersection<'a>(&'a self, other: &'a Self) -> impl Iterator<Item = &'a Spot> + 'a {
        self.0.iter().filter(|spot| other.contains(spot))
    }

    /// Sorts and drops repeats after spots were appended out of order.
    fn tidy(&mut self) {
        if !self.0.is_sorted_by(|a, b| a < b) {
            self.0.sort_unstable();
            self.0.dedup();
        }
    }
}

/// Most room a set or map made from a list reserves ahead (see [`presized`]).
const MOST_RESERVED: usize = 4096;

/// The items of `items` in a list sized once for as many as it may give: sets are mostly
/// made by filtering a region's spots, which a plain `collect` grows by doubling, with a
/// copy at each power of two (sets are made at every listing of a battle's choices).
fn presized<T>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let items = items.into_iter();
    let (least, most) = items.size_hint();
    let mut list = Vec::with_capacity(most.unwrap_or(least).min(MOST_RESERVED).max(least));
    list.extend(items);
    list
}

impl FromIterator<Spot> for SpotSet {
    fn from_iter<I: IntoIterator<Item = Spot>>(spots: I) -> Self {
        let mut set = Self(presized(spots));
        set.tidy();
        set
    }
}

impl Extend<Spot> for SpotSet {
    fn extend<I: IntoIterator<Item = Spot>>(&mut self, spots: I) {
        self.0.extend(spots);
        self.tidy();
    }
}

impl IntoIterator for SpotSet {
    type Item = Spot;
    type IntoIter = std::vec::IntoIter<Spot>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'s> IntoIterator for &'s SpotSet {
    type Item = &'s Spot;
    type IntoIter = std::slice::Iter<'s, Spot>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// A map from spots to values, in spot order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SpotMap<V>(Vec<(Spot, V)>);

impl<V> Default for SpotMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> SpotMap<V> {
    /// An empty map.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    fn find(&self, spot: Spot) -> Result<usize, usize> {
        self.0.binary_search_by(|(known, _)| known.cmp(&spot))
    }

    /// The value at `spot`.
    pub fn get(&self, spot: &Spot) -> Option<&V> {
        self.find(*spot).ok().and_then(|at| self.0.get(at)).map(|(_, value)| value)
    }

    /// The value at `spot`, to change.
    pub fn get_mut(&mut self, spot: &Spot) -> Option<&mut V> {
        self.find(*spot).ok().and_then(|at| self.0.get_mut(at)).map(|(_, value)| value)
    }

    /// Whether `spot` has a value.
    pub fn contains_key(&self, spot: &Spot) -> bool {
        self.find(*spot).is_ok()
    }

    /// Sets the value at `spot`, returning the one it replaces.
    pub fn insert(&mut self, spot: Spot, value: V) -> Option<V> {
        if self.0.last().is_none_or(|(last, _)| *last < spot) {
            self.0.push((spot, value));
            return None;
        }
        match self.find(spot) {
            Ok(at) => self.0.get_mut(at).map(|(_, old)| std::mem::replace(old, value)),
            Err(at) => {
                self.0.insert(at, (spot, value));
                None
            }
        }
    }

    /// Keeps the entries `keep` holds for, asked in spot order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Spot, &mut V) -> bool) {
        self.0.retain_mut(|(spot, value)| keep(spot, value));
    }

    /// The entries in spot order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Spot, &V)> + ExactSizeIterator {
        self.0.iter().map(|(spot, value)| (spot, value))
    }

    /// The spots in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Spot> + ExactSizeIterator {
        self.0.iter().map(|(spot, _)| spot)
    }

    /// The values in spot order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.0.iter().map(|(_, value)| value)
    }

    /// The entries in spot order, as a slice.
    pub fn as_slice(&self) -> &[(Spot, V)] {
        &self.0
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V> FromIterator<(Spot, V)> for SpotMap<V> {
    /// As `BTreeMap::from_iter`: of entries for the same spot, the last one stays.
    fn from_iter<I: IntoIterator<Item = (Spot, V)>>(entries: I) -> Self {
        Self::from(presized(entries))
    }
}

impl<V> From<Vec<(Spot, V)>> for SpotMap<V> {
    /// As [`FromIterator`], keeping the list itself when it is in order already (who stands
    /// where is gathered, sorted and made a map at every region worked out).
    fn from(mut entries: Vec<(Spot, V)>) -> Self {
        if entries.is_sorted_by(|(a, _), (b, _)| a < b) {
            return Self(entries);
        }
        // Stable: entries for one spot keep their order, and the last is kept.
        entries.sort_by_key(|(spot, _)| *spot);
        let mut kept: Vec<(Spot, V)> = Vec::with_capacity(entries.len());
        for (spot, value) in entries {
            match kept.last_mut() {
                Some((last, old)) if *last == spot => *old = value,
                _ => kept.push((spot, value)),
            }
        }
        Self(kept)
    }
}

impl<'m, V> IntoIterator for &'m SpotMap<V> {
    type Item = (&'m Spot, &'m V);
    type IntoIter = std::iter::Map<std::slice::Iter<'m, (Spot, V)>, fn(&'m (Spot, V)) -> (&'m Spot, &'m V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(spot, value)| (spot, value))
    }
}

impl<V> IntoIterator for SpotMap<V> {
    type Item = (Spot, V);
    type IntoIter = std::vec::IntoIter<(Spot, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<V, const N: usize> From<[(Spot, V); N]> for SpotMap<V> {
    fn from(entries: [(Spot, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;

    use super::*;

    fn spot() -> impl Strategy<Value = Spot> {
        (0u16..5, 0u16..5, 0u16..3).prop_map(|(x, y, z)| Spot::new(x, y, z))
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(Spot, u8),
        Remove(Spot),
        Retain(u8),
        Extend(Vec<Spot>),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (spot(), any::<u8>()).prop_map(|(spot, value)| Op::Insert(spot, value)),
            spot().prop_map(Op::Remove),
            any::<u8>().prop_map(Op::Retain),
            proptest::collection::vec(spot(), 0..8).prop_map(Op::Extend),
        ]
    }

    proptest! {
        /// The sets and maps answer, order and filter as the standard trees do.
        #[test]
        fn spot_sets_answer_as_the_btree_types_do(
            start in proptest::collection::vec((spot(), any::<u8>()), 0..20),
            ops in proptest::collection::vec(op(), 0..30),
            probes in proptest::collection::vec(spot(), 0..10),
        ) {
            let mut set: SpotSet = start.iter().map(|(spot, _)| *spot).collect();
            let mut tree_set: BTreeSet<Spot> = start.iter().map(|(spot, _)| *spot).collect();
            let mut map: SpotMap<u8> = start.iter().copied().collect();
            let mut tree_map: BTreeMap<Spot, u8> = start.iter().copied().collect();
            for op in ops {
                match op {
                    Op::Insert(spot, value) => {
                        prop_assert_eq!(set.insert(spot), tree_set.insert(spot));
                        prop_assert_eq!(map.insert(spot, value), tree_map.insert(spot, value));
                    }
                    Op::Remove(spot) => {
                        prop_assert_eq!(set.remove(&spot), tree_set.remove(&spot));
                    }
                    Op::Retain(bits) => {
                        let keep = |spot: &Spot| (spot.cell_x + spot.cell_y + spot.level) % 3 != u16::from(bits % 3);
                        let mut asked = Vec::new();
                        let mut tree_asked = Vec::new();
                        set.retain(|spot| { asked.push(*spot); keep(spot) });
                        tree_set.retain(|spot| { tree_asked.push(*spot); keep(spot) });
                        prop_assert_eq!(asked, tree_asked);
                        map.retain(|spot, value| keep(spot) || *value > 100);
                        tree_map.retain(|spot, value| keep(spot) || *value > 100);
                    }
                    Op::Extend(spots) => {
                        set.extend(spots.iter().copied());
                        tree_set.extend(spots.iter().copied());
                    }
                }
                prop_assert_eq!(set.iter().copied().collect::<Vec<_>>(), tree_set.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(
                    map.iter().map(|(spot, value)| (*spot, *value)).collect::<Vec<_>>(),
                    tree_map.iter().map(|(spot, value)| (*spot, *value)).collect::<Vec<_>>()
                );
            }
            for probe in &probes {
                prop_assert_eq!(set.contains(probe), tree_set.contains(probe));
                prop_assert_eq!(map.get(probe), tree_map.get(probe));
                prop_assert_eq!(map.contains_key(probe), tree_map.contains_key(probe));
            }
            let other: SpotSet = probes.iter().copied().collect();
            let tree_other: BTreeSet<Spot> = probes.iter().copied().collect();
            prop_assert_eq!(
                set.intersection(&other).copied().collect::<Vec<_>>(),
                tree_set.intersection(&tree_other).copied().collect::<Vec<_>>()
            );
            prop_assert_eq!(set.len(), tree_set.len());
            prop_assert_eq!(map.len(), tree_map.len());
        }
    }
}
