//! Simulations spread over machines: `actforge sim --shard K/N` plays the K-th of N contiguous
//! slices of the runs and keeps every run's record (medians and histograms do not merge from
//! summaries), and [`merge`] folds the shards into exactly the summary one machine would have
//! made (FORMAT.md §15, *Shards*).

use std::collections::BTreeMap;
use std::fmt::Display;
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{FoldContext, Policy, Progress, RunRecord, SimError, SimOptions, Summary, fold, simulate_records};
use crate::engine::Content;
use crate::project::{BundleFormat, bundle_text};

/// The `format` of a shard document.
pub const SHARD_FORMAT: &str = "actforge-sim-shard";
/// Shard format version, written into every shard.
pub const SHARD_VERSION: u32 = 1;

/// Everything that decides a simulation's runs; shards merge only when theirs are equal.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardParameters {
    /// The project's name (for people; the hash decides).
    pub project: String,
    /// `fnv1a64:HEX` of the project's RON bundle text (FORMAT.md §4): equal content, equal hash.
    pub content_hash: String,
    /// Runs of the whole simulation, over all shards.
    pub runs: usize,
    /// The first seed.
    pub seed: u64,
    /// The policy's name.
    pub policy: String,
    /// The greedy player's score formula, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<String>,
    /// `fnv1a64:HEX` of the script of `script` play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_hash: Option<String>,
    /// Moves after which a run stops as `unfinished`.
    pub max_moves: usize,
    /// Engine steps after which a run stops as `cut`.
    pub max_steps: u64,
}

impl ShardParameters {
    /// The parameters of simulating `content` with `options` (the thread count is left out: it
    /// never changes a run).
    pub fn of(content: &Content, options: &SimOptions) -> Result<Self, SimError> {
        let bundle = bundle_text(&content.project, BundleFormat::Ron)
            .map_err(|error| SimError::Options(format!("cannot hash the content: {error}")))?;
        let (score, script) = policy_inputs(&options.policy);
        Ok(Self {
            project: content.project.manifest.name.clone(),
            content_hash: fnv1a64(bundle.as_bytes()),
            runs: options.runs,
            seed: options.seed,
            policy: options.policy.name(),
            score,
            script_hash: script.map(|script| fnv1a64(script.as_bytes())),
            max_moves: options.max_moves,
            max_steps: options.max_steps,
        })
    }

    /// The first field that differs from `other`: its name and both values.
    fn difference(&self, other: &Self) -> Option<(&'static str, String, String)> {
        fn show<T: std::fmt::Debug>(value: &T) -> String {
            format!("{value:?}")
        }
        let fields: [(&'static str, String, String); 9] = [
            ("project", show(&self.project), show(&other.project)),
            ("content_hash (the content)", show(&self.content_hash), show(&other.content_hash)),
            ("runs", show(&self.runs), show(&other.runs)),
            ("seed", show(&self.seed), show(&other.seed)),
            ("policy", show(&self.policy), show(&other.policy)),
            ("score", show(&self.score), show(&other.score)),
            ("script_hash (the script)", show(&self.script_hash), show(&other.script_hash)),
            ("max_moves", show(&self.max_moves), show(&other.max_moves)),
            ("max_steps", show(&self.max_steps), show(&other.max_steps)),
        ];
        fields.into_iter().find(|(_, mine, theirs)| mine != theirs)
    }
}

/// The score formula and the script text a policy plays with.
fn policy_inputs(policy: &Policy) -> (Option<String>, Option<Arc<str>>) {
    match policy {
        Policy::Random => (None, None),
        Policy::Greedy { score } => (score.clone(), None),
        Policy::Script(script) => (None, Some(Arc::clone(script))),
        Policy::Sides(sides) => sides
            .iter()
            .map(policy_inputs)
            .fold((None, None), |(score, script), side| (score.or(side.0), script.or(side.1))),
    }
}

/// FNV-1a, 64 bits, as `fnv1a64:HEX`: stable across machines and versions, unlike std's hasher.
fn fnv1a64(bytes: &[u8]) -> String {
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("fnv1a64:{hash:016x}")
}

/// One slice of a simulation's runs (the `actforge sim --shard K/N --json` document).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// [`SHARD_FORMAT`].
    pub format: String,
    /// [`SHARD_VERSION`].
    pub version: u32,
    /// K, from 1.
    pub shard: usize,
    /// N.
    pub shards: usize,
    /// The index (from 0) of the shard's first run in the whole simulation.
    pub first_run: usize,
    /// What decides the runs.
    pub parameters: ShardParameters,
    /// What folding the runs reads besides them.
    pub context: FoldContext,
    /// One record per run, in run order.
    pub records: Vec<RunRecord>,
}

/// Why shards could not be made or merged.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// `--shard` is not `K/N` with 1 ≤ K ≤ N.
    #[error("{0}")]
    Spec(String),
    /// A file is not a shard this version reads.
    #[error("{file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// Nothing to merge.
    #[error("no shards to merge")]
    Empty,
    /// Two shards come from different simulations.
    #[error("{file} and {other} are shards of different simulations: {what} {mine} vs {theirs}")]
    Mismatch {
        /// The first shard read.
        file: String,
        /// The shard that disagrees.
        other: String,
        /// What differs.
        what: String,
        /// Its value in `file`.
        mine: String,
        /// Its value in `other`.
        theirs: String,
    },
    /// A shard is given twice.
    #[error("shard {shard}/{shards} is given twice: {first} and {second}")]
    Duplicate {
        /// K.
        shard: usize,
        /// N.
        shards: usize,
        /// The first file holding it.
        first: String,
        /// The second.
        second: String,
    },
    /// Shards are missing.
    #[error("shard {missing} of {shards} missing: merge needs all {shards} shards")]
    Missing {
        /// The missing K, e.g. `3/4` or `2/4, 4/4`.
        missing: String,
        /// N.
        shards: usize,
    },
    /// A shard does not hold the runs its K/N says.
    #[error(
        "{file}: shard {shard}/{shards} of {runs} runs should hold {expected_len} runs from run {expected_first} \
         (from 0), but holds {found_len} from run {found_first}"
    )]
    Runs {
        /// The file.
        file: String,
        /// K.
        shard: usize,
        /// N.
        shards: usize,
        /// Runs of the whole simulation.
        runs: usize,
        /// The first run it should hold.
        expected_first: usize,
        /// How many runs it should hold.
        expected_len: usize,
        /// The first run it says it holds.
        found_first: usize,
        /// How many it holds.
        found_len: usize,
    },
}

/// Reads `K/N` (1 ≤ K ≤ N), e.g. `2/4`.
pub fn parse_spec(spec: &str) -> Result<(usize, usize), ShardError> {
    let bad = |why: &str| ShardError::Spec(format!("--shard {spec}: {why}; write K/N with 1 ≤ K ≤ N, e.g. 2/4"));
    let (shard, shards) = spec.split_once('/').ok_or_else(|| bad("no `/`"))?;
    let number = |text: &str, what: &str| {
        text.trim().parse::<usize>().map_err(|_| bad(&format!("{what} `{text}` is not a whole number")))
    };
    let (shard, shards) = (number(shard, "K")?, number(shards, "N")?);
    if shards == 0 {
        return Err(bad("N must be at least 1"));
    }
    if shard == 0 || shard > shards {
        return Err(bad(&format!("K must be between 1 and {shards}")));
    }
    Ok((shard, shards))
}

/// The runs (indices from 0) of shard `shard` of `shards` (from 1) of a simulation of `runs`
/// runs: contiguous blocks in shard order, sizes differing by at most one (some empty when
/// there are more shards than runs).
pub fn shard_runs(runs: usize, shard: usize, shards: usize) -> Range<usize> {
    #[allow(clippy::cast_possible_truncation)] // at most `runs`, a usize
    let at = |k: usize| (runs as u128 * k as u128 / shards.max(1) as u128) as usize;
    let shard = shard.clamp(1, shards.max(1));
    at(shard - 1)..at(shard)
}

/// Plays shard `shard` of `shards` of the simulation of `content` with `options`.
pub fn simulate_shard(
    content: &Arc<Content>,
    options: &SimOptions,
    shard: usize,
    shards: usize,
    progress: &Progress,
) -> Result<Shard, SimError> {
    let parameters = ShardParameters::of(content, options)?;
    let runs = shard_runs(options.runs, shard, shards);
    let first_run = runs.start;
    let (context, records) = simulate_records(content, options, runs, progress)?;
    Ok(Shard {
        format: SHARD_FORMAT.to_owned(),
        version: SHARD_VERSION,
        shard,
        shards,
        first_run,
        parameters,
        context,
        records,
    })
}

/// Reads a shard document; `file` names it in errors.
pub fn read_shard(file: &str, text: &str) -> Result<Shard, ShardError> {
    /// The header alone, to say what a document is before reading it whole.
    #[derive(Deserialize)]
    struct Header {
        format: Option<String>,
        version: Option<u32>,
    }
    let read = |message: String| ShardError::Read { file: file.to_owned(), message };
    let header: Header = serde_json::from_str(text).map_err(|error| read(format!("not JSON: {error}")))?;
    match header.format.as_deref() {
        Some(SHARD_FORMAT) => {}
        Some(other) => return Err(read(format!("not a shard: its format is `{other}`, not `{SHARD_FORMAT}`"))),
        None => {
            return Err(read(format!(
                "not a shard (no `format: {SHARD_FORMAT}`); write shards with actforge sim --shard K/N --json"
            )));
        }
    }
    if header.version != Some(SHARD_VERSION) {
        let found = header.version.map_or_else(|| "none".to_owned(), |version| version.to_string());
        return Err(read(format!("shard version {found}; this actforge reads version {SHARD_VERSION}")));
    }
    serde_json::from_str(text).map_err(|error| read(format!("not a whole shard: {error}")))
}

/// Folds shards (each with the file that held it, for errors) into the summary of the whole
/// simulation: they must share parameters and fold context, and cover 1..N exactly once.
pub fn merge(shards: &[(String, Shard)]) -> Result<Summary, ShardError> {
    let Some((first_file, first)) = shards.first() else { return Err(ShardError::Empty) };
    let mismatch = |other: &str, what: &str, mine: &dyn Display, theirs: &dyn Display| ShardError::Mismatch {
        file: first_file.clone(),
        other: other.to_owned(),
        what: what.to_owned(),
        mine: mine.to_string(),
        theirs: theirs.to_string(),
    };
    let mut by_shard: BTreeMap<usize, (&String, &Shard)> = BTreeMap::new();
    for (file, shard) in shards {
        if let Some((what, mine, theirs)) = first.parameters.difference(&shard.parameters) {
            return Err(mismatch(file, what, &mine, &theirs));
        }
        if shard.shards != first.shards {
            return Err(mismatch(file, "shard count N", &first.shards, &shard.shards));
        }
        if shard.context != first.context {
            return Err(mismatch(
                file,
                "fold context (made by different actforge versions?)",
                &"one context",
                &"another",
            ));
        }
        if shard.shard == 0 || shard.shard > shard.shards {
            return Err(ShardError::Read {
                file: file.clone(),
                message: format!("shard {}/{}: K must be between 1 and N", shard.shard, shard.shards),
            });
        }
        let expected = shard_runs(shard.parameters.runs, shard.shard, shard.shards);
        if shard.first_run != expected.start || shard.records.len() != expected.len() {
            return Err(ShardError::Runs {
                file: file.clone(),
                shard: shard.shard,
                shards: shard.shards,
                runs: shard.parameters.runs,
                expected_first: expected.start,
                expected_len: expected.len(),
                found_first: shard.first_run,
                found_len: shard.records.len(),
            });
        }
        if let Some((earlier, _)) = by_shard.insert(shard.shard, (file, shard)) {
            return Err(ShardError::Duplicate {
                shard: shard.shard,
                shards: shard.shards,
                first: earlier.clone(),
                second: file.clone(),
            });
        }
    }
    let missing: Vec<String> =
        (1..=first.shards).filter(|k| !by_shard.contains_key(k)).map(|k| format!("{k}/{}", first.shards)).collect();
    if !missing.is_empty() {
        return Err(ShardError::Missing { missing: missing.join(", "), shards: first.shards });
    }
    let records: Vec<RunRecord> = by_shard.values().flat_map(|(_, shard)| shard.records.iter().cloned()).collect();
    Ok(fold(&first.context, &records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_runs_cover_every_run_once_in_order() {
        for runs in [0, 1, 2, 7, 100, 1001] {
            for shards in 1..=9 {
                let mut next = 0;
                for shard in 1..=shards {
                    let range = shard_runs(runs, shard, shards);
                    assert_eq!(range.start, next, "{runs} runs, {shard}/{shards}");
                    assert!(range.len() <= runs.div_ceil(shards), "{runs} runs, {shard}/{shards}");
                    next = range.end;
                }
                assert_eq!(next, runs);
            }
        }
        assert_eq!(shard_runs(usize::MAX, 2, 2).end, usize::MAX);
    }

    #[test]
    fn parse_spec_takes_k_of_n_and_says_what_is_wrong() {
        assert_eq!(parse_spec("2/4").ok(), Some((2, 4)));
        assert_eq!(parse_spec("1/1").ok(), Some((1, 1)));
        for (spec, why) in [
            ("0/4", "K must be between 1 and 4"),
            ("5/4", "K must be between 1 and 4"),
            ("1/0", "N must be at least 1"),
            ("2", "no `/`"),
            ("a/4", "K `a` is not a whole number"),
            ("1/-3", "N `-3` is not a whole number"),
        ] {
            let message = parse_spec(spec).err().map(|error| error.to_string()).unwrap_or_default();
            assert!(message.contains(why), "{spec}: {message}");
            assert!(message.contains("K/N"), "{spec}: {message}");
        }
    }

    #[test]
    fn stat_values_round_trip_nan_and_infinities_through_json() {
        let record = RunRecord {
            outcome: "draw".to_owned(),
            stats: vec![
                ("a".to_owned(), f64::NAN),
                ("b".to_owned(), f64::INFINITY),
                ("c".to_owned(), f64::NEG_INFINITY),
                ("d".to_owned(), 0.1 + 0.2),
                ("e".to_owned(), -0.0),
            ],
            board_plays: BTreeMap::from([(("one".to_owned(), "shield".to_owned()), 3)]),
            ..RunRecord::default()
        };
        let text = serde_json::to_string(&record).unwrap_or_default();
        let back: RunRecord = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back.board_plays, record.board_plays);
        let bits = |record: &RunRecord| record.stats.iter().map(|(_, v)| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&record), "{text}");
        let bad = r#"{"outcome":"draw","moves":0,"ticks":0,"turns":0,"steps":0,"stats":[["a","lots"]]}"#;
        let error = serde_json::from_str::<RunRecord>(bad).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("`lots` is not a number"), "{error}");
    }
}
