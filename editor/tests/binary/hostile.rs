//! Issue 27: hostile content, generated for every field kind, run in child `actforge`
//! processes (an abort must not take the test binary down). Each case copies a bundled pack,
//! replaces one value of one item file (a number, a string such as a formula, an id or a text,
//! an identifier such as a bool or an enum variant, a field name, or a whole line) with a
//! hostile one, then runs `check`, `sim` and `test` on it. Every command must exit 0 or 1 (no
//! panic, no abort, no signal) within a time limit and an address-space limit, `sim` must stay
//! within its step budget, and every error `check` prints must say file:line:col.
//!
//! More cases: `ACTFORGE_HOSTILE_CASES=2000 cargo test -p actforge-editor --test binary hostile`;
//! other cases: `ACTFORGE_HOSTILE_SEED=N` (a byte; CI runs seed 27).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};

/// Cases the property runs in the normal test run (about 0.2 s each in a debug build).
const DEFAULT_CASES: u32 = 128;
/// Wall-clock limit per command: a safety net that turns a hang into a failure, not a measure.
const COMMAND_LIMIT: Duration = Duration::from_secs(120);
/// Address space a command may map (`prlimit --as`): an unbounded allocation aborts past it.
const ADDRESS_SPACE: u64 = 3 << 30;
/// The step budget `sim` runs with, and the most one move may add past it (a choice and the
/// instant acts it completes, cut by the engine at 10,000).
const MAX_STEPS: u64 = 20_000;
const ONE_MOVE: u64 = 20_100;

/// A literal of an item file that a case may replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    Number,
    Text,
    Ident,
    Field,
    Line,
}

/// Where the literals of a RON text are: (kind, byte range).
fn leaves(text: &str) -> Vec<(Leaf, std::ops::Range<usize>)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    let mut line_start = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == b'\n' {
            if at > line_start {
                found.push((Leaf::Line, line_start..at));
            }
            line_start = at + 1;
            at += 1;
        } else if byte == b'"' {
            let start = at;
            at += 1;
            while at < bytes.len() && bytes[at] != b'"' {
                at += if bytes[at] == b'\\' { 2 } else { 1 };
            }
            at = (at + 1).min(bytes.len());
            found.push((Leaf::Text, start..at));
        } else if byte.is_ascii_digit() || (byte == b'-' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)) {
            let start = at;
            at += 1;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || b".+-_".contains(&bytes[at])) {
                at += 1;
            }
            found.push((Leaf::Number, start..at));
        } else if byte.is_ascii_alphabetic() || byte == b'_' {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            let field = text[at..].trim_start().starts_with(':');
            found.push((if field { Leaf::Field } else { Leaf::Ident }, start..at));
        } else {
            at += 1;
        }
    }
    found
}

/// Hostile values for a literal of kind `leaf`.
fn hostile(leaf: Leaf) -> Vec<String> {
    let chain = format!("\"{}\"", vec!["1"; 2_000].join("+"));
    let nested = format!("\"{}1{}\"", "(".repeat(400), ")".repeat(400));
    let long = format!("\"{}\"", "x".repeat(100_000));
    let numbers = [
        "0",
        "-1",
        "-2147483649",
        "4294967296",
        "9223372036854775807",
        "-9223372036854775808",
        "18446744073709551616",
        "1e308",
        "1e309",
        "-0.0",
        "0.0000001",
        "99999999999999999999999999",
        "NaN",
        "inf",
        "-inf",
    ];
    let texts = [
        "\"\"",
        "\"0/0\"",
        "\"1/0\"",
        "\"1e308*1e308\"",
        "\"-(1/0)\"",
        "\"nope\"",
        "\"a\\nb: error: forged\"",
        "\"\\u{0}\"",
        "\"\\u{202e}evil\"",
        "\"../../outside\"",
        "\"{{label}}\"",
        "\"{{\"",
        "\"table.card.nope\"",
        "\"max(\"",
        "\"1 +\"",
        "\"x.y.z.w.v\"",
        "\"1000000000\"",
        "\"-5\"",
        "\"9007199254740993\"",
        "\"🂡\"",
    ];
    let idents = ["true", "false", "None", "Some(\"nope\")", "Nope", "()", "[]", "Some(Some(1))"];
    let fields = ["nope", "id", "r#type", "_"];
    let lines = ["", "(", ")", "]", "id: \"twin\",", "    ((((((((((((((((((((((((((((((((", "\u{feff}"];
    match leaf {
        Leaf::Number => numbers.iter().map(ToString::to_string).chain([chain.clone()]).collect(),
        Leaf::Text => texts.iter().map(ToString::to_string).chain([chain, nested, long]).collect(),
        Leaf::Ident => idents.iter().map(ToString::to_string).chain(["1e309".to_owned()]).collect(),
        Leaf::Field => fields.iter().map(ToString::to_string).collect(),
        Leaf::Line => lines.iter().map(ToString::to_string).collect(),
    }
}

/// The item files of a bundled pack (every kind folder), in a stable order.
fn item_files(pack: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![pack.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.file_name().unwrap().to_string_lossy().starts_with('.') {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "ron") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// What one command did.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `actforge ARGS` under an address-space limit and a time limit.
fn run(args: &[&str]) -> Ran {
    let actforge = env!("CARGO_BIN_EXE_actforge");
    // `prlimit` (util-linux, essential in Debian) applies the limit without unsafe code here.
    let mut command = Command::new("prlimit");
    command.arg(format!("--as={ADDRESS_SPACE}")).arg("--").arg(actforge);
    command.args(args).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").env("RUST_BACKTRACE", "0");
    let out_dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (out_dir.path().join("out"), out_dir.path().join("err"));
    command.stdout(Stdio::from(std::fs::File::create(&out_path).unwrap()));
    command.stderr(Stdio::from(std::fs::File::create(&err_path).unwrap()));
    let mut child = command.spawn().expect("prlimit runs (util-linux)");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > COMMAND_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |path: &Path| String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
    Ran { code: status.and_then(|status| status.code()), stdout: read(&out_path), stderr: read(&err_path) }
}

/// An error line of `check` says where: `PATH:LINE:COL: error: …` (or the project folder for
/// what belongs to no file, e.g. a missing entry).
fn located(line: &str, root: &Path) -> bool {
    let Some(before) = line.split(": error: ").next() else { return false };
    let mut parts = before.rsplitn(3, ':');
    let (col, row, path) = (parts.next(), parts.next(), parts.next());
    let numbered =
        |part: Option<&str>| part.is_some_and(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    (numbered(col) && numbered(row) && path.is_some_and(|path| path.starts_with(&*root.to_string_lossy())))
        || before == root.to_string_lossy()
}

fn packs() -> Vec<PathBuf> {
    let content = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content");
    let mut packs: Vec<PathBuf> =
        std::fs::read_dir(content).unwrap().map(|entry| entry.unwrap().path()).filter(|path| path.is_dir()).collect();
    packs.sort();
    packs
}

#[test]
fn hostile_values_in_every_field_kind_give_clean_exits_bounded_work_and_located_errors() {
    let cases =
        std::env::var("ACTFORGE_HOSTILE_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(DEFAULT_CASES);
    let packs = packs();
    let config = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..Config::default()
    };
    // A fixed seed: CI runs the same cases every time.
    let seed: u8 = std::env::var("ACTFORGE_HOSTILE_SEED").ok().and_then(|seed| seed.parse().ok()).unwrap_or(27);
    let mut runner = TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[seed; 32]),
    );
    let kinds = std::cell::RefCell::new(std::collections::BTreeMap::<String, usize>::new());
    let strategy = (any::<Index>(), any::<Index>(), any::<Index>(), any::<Index>(), any::<Index>());
    runner
        .run(&strategy, |(pack, file, kind, leaf, value)| {
            let pack = pack.get(&packs);
            let files = item_files(pack);
            let file = file.get(&files);
            let text = std::fs::read_to_string(file).unwrap();
            let spots = leaves(&text);
            // The kind first, so that each is drawn about as often however many a file has.
            let mut present: Vec<Leaf> = spots.iter().map(|(kind, _)| *kind).collect();
            present.sort_by_key(|kind| *kind as u8);
            present.dedup();
            prop_assume!(!present.is_empty());
            let kind = *kind.get(&present);
            let of_kind: Vec<_> = spots.iter().filter(|(found, _)| *found == kind).collect();
            let (kind, range) = (*leaf.get(&of_kind)).clone();
            let values = hostile(kind);
            let value = value.get(&values);
            let mutated = format!("{}{value}{}", &text[..range.start], &text[range.end..]);
            *kinds.borrow_mut().entry(format!("{kind:?}")).or_default() += 1;
            let what = format!(
                "{} {}: {kind:?} `{}` → `{}`",
                pack.file_name().unwrap().to_string_lossy(),
                file.strip_prefix(pack).unwrap().display(),
                &text[range.clone()].chars().take(60).collect::<String>(),
                value.chars().take(60).collect::<String>()
            );
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("p");
            actforge_tests::copy_dir(pack, &root).unwrap();
            std::fs::write(root.join(file.strip_prefix(pack).unwrap()), mutated).unwrap();
            let root_text = root.display().to_string();

            let check = run(&["check", &root_text]);
            prop_assert!(matches!(check.code, Some(0 | 1)), "check {what}: exit {:?}\n{}", check.code, check.stderr);
            for line in check.stdout.lines().filter(|line| line.contains(": error: ")) {
                prop_assert!(located(line, &root), "check {what}: an error without file:line:col: {line}");
            }
            prop_assert!(
                check.code == Some(0) || check.stdout.contains(": error: "),
                "check {what}: failed without an error line\n{}{}",
                check.stdout,
                check.stderr
            );

            let steps = MAX_STEPS.to_string();
            let sim = run(&[
                "sim",
                &root_text,
                "--runs",
                "2",
                "--max-moves",
                "300",
                "--max-steps",
                &steps,
                "--allow-broken",
                "--json",
            ]);
            prop_assert!(matches!(sim.code, Some(0 | 1)), "sim {what}: exit {:?}\n{}", sim.code, sim.stderr);
            if sim.code == Some(0) {
                let summary: serde_json::Value = serde_json::from_str(&sim.stdout).unwrap();
                let most = summary["steps"]["max"].as_f64().unwrap_or(0.0);
                prop_assert!(most <= (MAX_STEPS + ONE_MOVE) as f64, "sim {what}: a run took {most} steps");
            }

            let test = run(&["test", &root_text, "--max-sim-runs", "2", "--allow-broken"]);
            prop_assert!(matches!(test.code, Some(0 | 1)), "test {what}: exit {:?}\n{}", test.code, test.stderr);
            Ok(())
        })
        .unwrap();
    // Reported in the note: how many cases of each kind the run generated.
    let kinds = kinds.into_inner();
    eprintln!("hostile cases: {cases} ({kinds:?})");
    assert!(kinds.len() >= 4, "every kind of literal is exercised: {kinds:?}");
}
