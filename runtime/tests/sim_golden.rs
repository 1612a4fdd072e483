//! Golden logs of seeded random runs: every move's choice and events and every run's final
//! state hash, for the packs whose battles the simulation speeds up (issue 31). A faster engine
//! must play the very same games, so these hashes never change with an optimisation; when a
//! behaviour change moves them on purpose, print the new ones with `GOLDEN_PRINT=1` and say why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a test

use std::path::PathBuf;
use std::sync::Arc;

use actforge_runtime::engine::policy::{Move, RandomPolicy};
use actforge_runtime::engine::{Content, Session};
use actforge_runtime::project::load_folder;
use actforge_runtime::sim::{DEFAULT_MAX_STEPS, Progress, SimOptions, run_seed, simulate};

/// Runs per pack.
const RUNS: usize = 30;
/// The first seed (as `actforge sim` defaults to).
const SEED: u64 = 1;
/// The move cap of `actforge sim`.
const MAX_MOVES: usize = 2000;

/// `srpg-skirmish`: each run's hash, then the summary's.
const SKIRMISH: [u64; RUNS] = [
    0x8fce_7de5_8de8_a3fd,
    0x1301_0f81_b5be_272b,
    0x98b0_af5f_4fc5_c232,
    0x8ff9_2fc6_74d8_0879,
    0xcafc_b090_af1c_2f86,
    0xcb2a_7b05_8815_9c1a,
    0xadad_3615_aa24_0a38,
    0x0b3b_a9f4_67e7_074b,
    0x23b4_ee28_306f_13a8,
    0x329d_f72f_c096_49f9,
    0xf06b_91f1_cfb5_4bff,
    0x2ee5_0ecb_18fc_96f0,
    0x8a8c_9ccc_2a8e_91ec,
    0x78a4_a6b8_a17d_ff32,
    0x0842_4a3e_dc18_e387,
    0x45d5_aec5_5caa_6100,
    0xa4ef_cd12_980c_4ea3,
    0x3919_47ca_484c_6fd7,
    0xfaa9_db03_5ee1_aae4,
    0xa410_a44d_6785_3222,
    0xfc7d_01d0_d11f_7ece,
    0x26f5_4260_abc0_7b76,
    0x481d_fe81_2115_c5d2,
    0x70c8_36d4_037b_ba86,
    0x90ea_46b9_ffc5_888c,
    0xebc0_fbcb_159f_687d,
    0x5541_5b59_9194_df0e,
    0xf31e_163b_247b_8336,
    0x3566_e5b6_04d3_5adc,
    0x4c07_acaf_86c2_3f04,
];
const SKIRMISH_SUMMARY: u64 = 0xe8c2_17f2_dc26_ff39;

/// `lighthouse`: each run's hash, then the summary's. (The run hashes end with the state hash,
/// which the campaign's per-card state, bonds and revelations joined; the summary did not move.)
const LIGHTHOUSE: [u64; RUNS] = [
    0xf33c_53ff_a752_3fc1,
    0x7a20_37f9_7f10_dab8,
    0xab76_8d9d_dbce_0715,
    0xd578_1687_b095_bcf5,
    0x13c3_82ca_ab06_1d3b,
    0x61ee_e0b6_19a3_4298,
    0xa0e4_384c_ff51_235c,
    0xd449_b908_443b_fd6a,
    0xe663_0cc2_3d0a_8063,
    0x9258_7895_561e_819e,
    0x8131_48d0_bac8_6832,
    0x21c7_c7be_8ac1_9a6e,
    0xa569_8b90_eaeb_8119,
    0x8b2b_c558_89ac_b402,
    0x0cbe_e90b_336d_f430,
    0x17b1_94fa_a924_0425,
    0x5c35_df40_7121_38e2,
    0x4de0_8995_f078_0305,
    0xac47_a624_f5c3_ed1a,
    0x1357_2849_da8d_8627,
    0x9e53_e458_64be_d5ff,
    0xf745_5f2d_071d_285c,
    0x07fb_9fe5_0e12_b5ef,
    0xb682_5128_f528_0572,
    0xef42_f7b3_77e0_f54e,
    0x3b82_c19f_444a_1bd6,
    0x74a6_e5c3_ca58_1a16,
    0x6877_7b4a_e2a5_708e,
    0xd1f1_e9da_cccb_ab33,
    0x2526_7b81_aecd_ac32,
];
const LIGHTHOUSE_SUMMARY: u64 = 0xf862_5332_9424_0283;

fn compiled(pack: &str) -> Arc<Content> {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content").join(pack);
    Arc::new(Content::compile(load_folder(&folder).unwrap().project).unwrap())
}

/// FNV-1a: stable across platforms and toolchains.
fn fnv(hash: &mut u64, bytes: &[u8]) {
    for byte in bytes {
        *hash ^= u64::from(*byte);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

/// One run as the simulation plays it with the random policy (`sim::play_run`): the hash of
/// its full log (each move's choice or wait with its events) and of its final state.
fn run_hash(content: &Arc<Content>, run: usize) -> u64 {
    let seed = run_seed(SEED, run);
    let mut session = Session::from_content(Arc::clone(content), seed);
    session.set_step_limit(DEFAULT_MAX_STEPS);
    let mut random = RandomPolicy::new(seed ^ 0x5EED);
    let mut hash = 0xcbf2_9ce4_8422_2325;
    for _ in 0..MAX_MOVES {
        let step = random.step(&mut session);
        fnv(&mut hash, format!("{step:?}").as_bytes());
        if matches!(step, Move::Stuck) {
            break;
        }
        let work = session.counters();
        if work.steps.saturating_add(work.act_completions) > DEFAULT_MAX_STEPS {
            break;
        }
    }
    fnv(&mut hash, &session.state_hash().to_le_bytes());
    hash
}

/// The hash of the summary `actforge sim` prints for the same runs.
fn summary_hash(content: &Arc<Content>) -> u64 {
    let options = SimOptions { runs: RUNS, seed: SEED, threads: 1, max_moves: MAX_MOVES, ..SimOptions::default() };
    let summary = simulate(content, &options, &Progress::default()).unwrap();
    let mut hash = 0xcbf2_9ce4_8422_2325;
    fnv(&mut hash, serde_json::to_string(&summary).unwrap().as_bytes());
    hash
}

fn check(pack: &str, runs: &[u64; RUNS], summary: u64) {
    let content = compiled(pack);
    let got: Vec<u64> = (0..RUNS).map(|run| run_hash(&content, run)).collect();
    let got_summary = summary_hash(&content);
    if std::env::var_os("GOLDEN_PRINT").is_some() {
        println!("{pack}: runs {got:#018x?}\n{pack}: summary {got_summary:#018x}");
    }
    for (run, (got, want)) in got.iter().zip(runs).enumerate() {
        assert_eq!(got, want, "{pack}: run {run} (seed {}) played another game", run_seed(SEED, run));
    }
    assert_eq!(got_summary, summary, "{pack}: the summary of {RUNS} runs changed");
}

#[test]
fn srpg_skirmish_random_runs_replay_byte_for_byte() {
    check("srpg-skirmish", &SKIRMISH, SKIRMISH_SUMMARY);
}

#[test]
fn lighthouse_random_runs_replay_byte_for_byte() {
    check("lighthouse", &LIGHTHOUSE, LIGHTHOUSE_SUMMARY);
}
