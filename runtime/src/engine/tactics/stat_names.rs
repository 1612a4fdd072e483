//! A unit's stats and a battle's units by name, for lookups that compare one machine word
//! per name.
//!
//! Stats are read by name hundreds of thousands of times per simulated battle (every
//! scheduler tick reads `ct` and `maxCT`, every region its radius formula's stats). In a
//! `BTreeMap<String, _>` each read walked the keys with a library `memcmp` per key, a fifth of
//! a skirmish run. Here each name carries its first seven bytes and its length packed in a
//! word: a unit has a dozen stats, so a read is a dozen word compares and, only for names
//! longer than seven bytes, one compare of the rest (a battle's units likewise). Iteration
//! and hashing go in name order, as the maps they replace did, so battles hash as before.

use std::hash::{Hash, Hasher};

/// The first seven bytes of `name` and its length (capped at 255), packed: two names with
/// the same word are equal when they are at most seven bytes long, else they share their
/// first seven bytes and their length.
#[inline]
fn word(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let len = bytes.len();
    // Whole-word loads, two overlapping ones for a short name (the bytes they share are the
    // same, so or-ing them is exact), placed as `u64::from_le_bytes` would: a copy of a
    // length only known at run time is a library call, and this runs at every stat read.
    let shift = |kept: usize| u32::try_from(len.saturating_sub(kept).saturating_mul(8)).unwrap_or(0);
    let head = if let Some(eight) = bytes.first_chunk::<8>() {
        u64::from_le_bytes(*eight) & 0x00ff_ffff_ffff_ffff
    } else if let (Some(low), Some(high)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*low)) | u64::from(u32::from_le_bytes(*high)).wrapping_shl(shift(4))
    } else if let (Some(low), Some(high)) = (bytes.first_chunk::<2>(), bytes.last_chunk::<2>()) {
        u64::from(u16::from_le_bytes(*low)) | u64::from(u16::from_le_bytes(*high)).wrapping_shl(shift(2))
    } else {
        bytes.first().map_or(0, |byte| u64::from(*byte))
    };
    head | u64::from(u8::try_from(len).unwrap_or(u8::MAX)) << 56
}

/// Whether `known` (whose word is `known_word`) is `name` (whose word is `name_word`).
#[inline]
fn same(known_word: u64, known: &str, name_word: u64, name: &str) -> bool {
    known_word == name_word && (name.len() <= 7 || known.as_bytes().get(7..) == name.as_bytes().get(7..))
}

/// Values by name, in name order: a unit's stats, a battle's units.
#[derive(Clone, PartialEq)]
pub struct NameMap<V>(Vec<(u64, String, V)>);

/// A unit's stat values by name.
pub type StatMap = NameMap<f64>;

/// Past this many names a lookup searches by halves instead of comparing every word.
const MOST_SCANNED: usize = 32;

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

/// A name with its packed word worked out once, for several lookups of one name (a stat read
/// asks the unit's live formulas, its stats and the project's passive effects).
#[derive(Clone, Copy)]
pub(super) struct Name<'a> {
    word: u64,
    text: &'a str,
}

impl<'a> Name<'a> {
    /// `text` as a name to look up.
    pub(super) fn new(text: &'a str) -> Self {
        Self { word: word(text), text }
    }

    /// The name as written.
    pub(super) fn text(self) -> &'a str {
        self.text
    }
}

impl<V> NameMap<V> {
    #[inline]
    fn find(&self, name: &str) -> Option<usize> {
        self.find_name(Name::new(name))
    }

    // Inlined into each read (a stat read makes three): as a call, saving and restoring
    // registers cost a third of the lookup; the long-map search stays out of line.
    #[inline]
    fn find_name(&self, name: Name<'_>) -> Option<usize> {
        if self.0.len() > MOST_SCANNED {
            return self.search_name(name.text);
        }
        self.0.iter().position(|(known_word, known, _)| same(*known_word, known, name.word, name.text))
    }

    /// [`Self::find_name`] in a long map: by halves.
    #[inline(never)]
    fn search_name(&self, name: &str) -> Option<usize> {
        self.0.binary_search_by(|(_, known, _)| known.as_str().cmp(name)).ok()
    }

    /// [`Self::get`] of a name already packed.
    #[inline]
    pub(super) fn get_name(&self, name: Name<'_>) -> Option<&V> {
        self.find_name(name).and_then(|at| self.0.get(at)).map(|(_, _, value)| value)
    }

    /// [`Self::contains_key`] of a name already packed.
    #[inline]
    pub(super) fn contains_name(&self, name: Name<'_>) -> bool {
        self.find_name(name).is_some()
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.find(name).and_then(|at| self.0.get(at)).map(|(_, _, value)| value)
    }

    /// The stored name and value of `name`.
    pub fn get_key_value(&self, name: &str) -> Option<(&String, &V)> {
        self.find(name).and_then(|at| self.0.get(at)).map(|(_, name, value)| (name, value))
    }

    /// The value of `name`, to change.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        self.find(name).and_then(|at| self.0.get_mut(at)).map(|(_, _, value)| value)
    }

    /// Whether there is a value for `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Sets `name` to `value`; the value it had, if any.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.0.binary_search_by(|(_, known, _)| known.as_str().cmp(&name)) {
            Ok(at) => self.0.get_mut(at).map(|(_, _, old)| std::mem::replace(old, value)),
            Err(at) => {
                self.0.insert(at, (word(&name), name, value));
                None
            }
        }
    }

    /// Takes `name` out; the value it had, if any.
    pub fn remove(&mut self, name: &str) -> Option<V> {
        let at = self.find(name)?;
        Some(self.0.remove(at).2)
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(_, name, _)| name)
    }

    /// The values, in name order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, _, value)| value)
    }

    /// The values to change, in name order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, _, value)| value)
    }

    /// The names and values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(_, name, value)| (name, value))
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'m, V> IntoIterator for &'m NameMap<V> {
    type Item = (&'m String, &'m V);
    type IntoIter = std::iter::Map<std::slice::Iter<'m, (u64, String, V)>, fn(&(u64, String, V)) -> (&String, &V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(_, name, value)| (name, value))
    }
}

impl<V: std::fmt::Debug> std::fmt::Debug for NameMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A unit's stat names (those still following their formula), in order.
pub type StatSet = NameMap<()>;

impl Hash for NameMap<()> {
    /// As a `BTreeSet<String>` of the same names hashes (its length, then each name in order),
    /// so battle hashes did not change with the type.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for name in self.keys() {
            name.hash(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::hash::{DefaultHasher, Hash, Hasher};

    use proptest::prelude::*;

    use super::{NameMap, StatSet, word};

    /// The packed word is the first seven bytes and the length, as `from_le_bytes` places them.
    #[test]
    fn a_word_packs_the_first_seven_bytes_and_the_length() {
        for name in ["", "a", "ct", "hpx", "move", "maxCT", "speed1", "ability", "position.x", "é", "ünïcödé names"]
        {
            let mut packed = [0_u8; 8];
            for (to, from) in packed.iter_mut().zip(name.as_bytes().iter().take(7)) {
                *to = *from;
            }
            packed[7] = u8::try_from(name.len()).unwrap_or(u8::MAX);
            assert_eq!(word(name), u64::from_le_bytes(packed), "{name:?}");
        }
    }

    /// Names that share words: prefixes, long names equal in their first seven bytes, empty.
    fn name() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "",
            "a",
            "ct",
            "hp",
            "maxhp",
            "maxhp2",
            "position",
            "positionX",
            "position.x",
            "position.y",
            "speed",
            "speedy",
            "abcdefg",
            "abcdefgh",
            "abcdefgi",
            "ünïcødé",
        ])
        .prop_map(str::to_owned)
    }

    proptest! {
        /// Any inserts, then any lookups: the same answers, order and hash as the std types.
        #[test]
        fn stat_names_answer_as_the_btree_types_do(
            inserts in prop::collection::vec((name(), -5.0_f64..5.0), 0..20),
            many in 0_usize..60,
            removes in prop::collection::vec(name(), 0..6),
            asks in prop::collection::vec(name(), 0..20),
        ) {
            let (mut map, mut btree_map) = (NameMap::default(), BTreeMap::new());
            let (mut set, mut btree_set) = (StatSet::default(), BTreeSet::new());
            // Past MOST_SCANNED names, lookups search by halves: both ways are asked.
            for at in 0..many {
                let name = format!("unit{at:02}");
                prop_assert_eq!(map.insert(name.clone(), -1.0), btree_map.insert(name.clone(), -1.0));
                prop_assert_eq!(set.insert(name.clone(), ()).is_none(), btree_set.insert(name));
            }
            for (name, value) in inserts {
                prop_assert_eq!(map.insert(name.clone(), value), btree_map.insert(name.clone(), value));
                prop_assert_eq!(set.insert(name.clone(), ()).is_none(), btree_set.insert(name));
            }
            for name in removes {
                prop_assert_eq!(set.remove(&name).is_some(), btree_set.remove(&name));
            }
            for name in asks {
                prop_assert_eq!(map.get(&name), btree_map.get(&name));
                prop_assert_eq!(map.contains_key(&name), btree_map.contains_key(&name));
                prop_assert_eq!(set.contains_key(&name), btree_set.contains(&name));
                if let (Some(value), Some(expected)) = (map.get_mut(&name), btree_map.get_mut(&name)) {
                    *value += 1.0;
                    *expected += 1.0;
                }
            }
            prop_assert_eq!(map.iter().collect::<Vec<_>>(), btree_map.iter().collect::<Vec<_>>());
            prop_assert_eq!(map.values().collect::<Vec<_>>(), btree_map.values().collect::<Vec<_>>());
            prop_assert_eq!(set.keys().collect::<Vec<_>>(), btree_set.iter().collect::<Vec<_>>());
            let hash = |value: &dyn Fn(&mut DefaultHasher)| {
                let mut hasher = DefaultHasher::new();
                value(&mut hasher);
                hasher.finish()
            };
            prop_assert_eq!(hash(&|h| set.hash(h)), hash(&|h| btree_set.hash(h)));
        }
    }
}
