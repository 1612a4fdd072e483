//! The command line: `actforge check | export | import | new | fmt | eval | play | test | synthesis | sim |
//! sim-merge | schema | merge | diff`.
//!
//! Every headless command lives here; the crate depends on the runtime only, so a headless
//! `actforge` (the editor crate without its `gui` feature) and the tests build no GUI crate.

pub mod sim;
pub mod strings;
pub mod team;
pub mod test;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use actforge_runtime::diagnostic::has_errors;
use actforge_runtime::engine::script::ScriptReport;
use actforge_runtime::engine::{Place, Session, Status};
use actforge_runtime::formula::query::{Query, QueryError};
use actforge_runtime::formula::{self, query};
use actforge_runtime::import::{CultistlikeOptions, copy_files, import_cultistlike_with};
use actforge_runtime::model::SCHEMA_VERSION;
use actforge_runtime::number::show_value;
use actforge_runtime::project::{
    self, BundleFormat, Loaded, ProjectError, create_project, import_bundle, load_folder, open_project, save_folder,
    save_new_folder,
};
use actforge_runtime::synthesis::probability_table;
use actforge_runtime::validate::validate;
use actforge_runtime::{Diagnostic, Kind, Severity};
use clap::{Parser, Subcommand, ValueEnum};

/// Actforge: an editor and level designer for card, narrative and tactics games.
///
/// Without a command, opens the editor on PROJECT (default: the bundled demo project).
#[derive(Debug, Parser)]
#[command(name = "actforge", version, about, long_about)]
pub struct Cli {
    /// The command; none opens the editor.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Project folder (or bundle) to open in the editor.
    pub project: Option<PathBuf>,
}

/// A command-line command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate a project and print `path:line:col: severity: message` lines; exits 1 on any error.
    Check {
        /// Project folder or bundle file.
        project: PathBuf,
        /// Print only errors, not warnings and notes.
        #[arg(long)]
        errors_only: bool,
    },
    /// Write a project as one bundle file for other runtimes.
    Export {
        /// Project folder (or a bundle, to convert between formats).
        project: PathBuf,
        /// Bundle file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Text format of the bundle.
        #[arg(long, value_enum, default_value_t = FormatArg::Ron)]
        format: FormatArg,
        /// Write the bundle even when validation finds errors.
        #[arg(long)]
        force: bool,
        /// Carry the project's playtests (`tests/*.play`) in the bundle.
        #[arg(long)]
        with_tests: bool,
        /// The languages the bundle carries, e.g. `fr,de` (default: every language of the project;
        /// `none`: the source language only).
        #[arg(long, value_delimiter = ',')]
        lang: Option<Vec<String>>,
    },
    /// String tables for translators: extract the texts, import translations, fill a
    /// pseudo-language.
    #[command(subcommand)]
    Strings(crate::strings::StringsCommand),
    /// Bring other content into a project folder.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Create a new, empty project folder.
    New {
        /// Folder to create (must be new or empty); its name becomes the project name.
        dir: PathBuf,
    },
    /// Evaluate a formula and print its value (NaN and ±inf are printed as such).
    ///
    /// Example: actforge eval --set c.atk=12 --set t.def=5 -- "max(0, c.atk - t.def)"
    Eval {
        /// A project (folder or bundle) whose named formulas (`f.NAME`) and stats can be read.
        #[arg(long)]
        project: Option<PathBuf>,
        /// Seed of the random draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Give a lookup a value, e.g. `--set c.PA=7` or `--set arg.currentHitType=1`.
        #[arg(long = "set", value_name = "NAME=NUMBER")]
        sets: Vec<String>,
        /// Add a named formula read as `f.NAME`, e.g. `--define dmg=c.PA*2` (NAME may contain dots).
        #[arg(long = "define", value_name = "NAME=FORMULA")]
        defines: Vec<String>,
        /// Only check the syntax and print the canonical form.
        #[arg(long)]
        parse: bool,
        /// The formula (put it after `--` if it starts with `-`).
        #[arg(allow_hyphen_values = true)]
        formula: String,
        /// Run even when some item files did not load (their items are missing; a loud warning
        /// says so). Without it, a project with files that did not load is refused.
        #[arg(long)]
        allow_broken: bool,
    },
    /// Run the project's own playtests (`tests/*.play` in the project folder) in parallel, each
    /// from the start with the project's seed; one line per test (a failure with its first
    /// failing `file:line: why`), then `N passed, M failed`; exits 1 when one fails.
    ///
    /// Example: actforge test content/lighthouse --filter lamp
    Test {
        /// Project folder.
        project: PathBuf,
        /// Run only the tests whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
        /// Play at most N runs for each `expect sim` line (CI keeps the packs' tests quick); a
        /// capped line says so in the output.
        #[arg(long, value_name = "N")]
        max_sim_runs: Option<usize>,
        /// Run even when some item files did not load (their items are missing; a loud warning
        /// says so). Without it, a project with files that did not load is refused.
        #[arg(long)]
        allow_broken: bool,
    },
    /// Play a project: run a playtest script's inputs (player actions, waits, expectations),
    /// let time pass, then print each query's value over the final state and the table; exits 1
    /// when a line fails or an input is not possible at that point.
    ///
    /// Example: actforge play content/lighthouse --script content/lighthouse/tests/lighthouse_lamp.play --query table.card.ember
    Play {
        /// Project folder or bundle file.
        project: PathBuf,
        /// The playtest script (see FORMAT.md, "Playtest scripts"); also accepted as --script.
        #[arg(value_name = "SCRIPT", conflicts_with = "script")]
        script_path: Option<PathBuf>,
        /// The playtest script.
        #[arg(long, value_name = "FILE")]
        script: Option<PathBuf>,
        /// Seed of the random draws (default: the project's).
        #[arg(long)]
        seed: Option<u64>,
        /// After the script, let time pass until this tick.
        #[arg(long, value_name = "T")]
        until_ticks: Option<u64>,
        /// A formula over the final state to print, e.g. `table.card.kitten` (repeatable).
        #[arg(long = "query", value_name = "EXPR", allow_hyphen_values = true)]
        queries: Vec<String>,
        /// After the script, say why something is not possible now (what fails, with the
        /// values): `ACT`, `option:CARD:OPTION`, `node:NODE`, `synthesis:A:B`,
        /// `skill:UNIT:SKILL[:X,Y,Z]`, `move:UNIT:X,Y,Z`, `pick:UNIT`, `ability:CARD[:OPTION]` or
        /// `slot:CARD:TOKEN[:PLACE]` (repeatable).
        #[arg(long = "explain", value_name = "SUBJECT")]
        explain: Vec<String>,
        /// Also print every event with its tick.
        #[arg(long)]
        trace: bool,
        /// Print one JSON object (log, events, queries, table) instead of text.
        #[arg(long)]
        json: bool,
        /// Debug: also list the aspects marked `hidden` in the printed table (marked `(hidden)`)
        /// and show a die hidden from the side to play.
        #[arg(long)]
        show_hidden: bool,
        /// Run even when some item files did not load (their items are missing; a loud warning
        /// says so). Without it, a project with files that did not load is refused.
        #[arg(long)]
        allow_broken: bool,
    },
    /// Print the probability table of a synthesis for two inputs: each candidate's tag score,
    /// softmax share, success chance and overall chance (spec era-synthesis §4).
    ///
    /// Example: actforge synthesis content/era-synthesis forge ember mist --set faith=60
    #[command(alias = "synth")]
    Synthesis {
        /// Project folder or bundle file.
        project: PathBuf,
        /// The synthesis id.
        synthesis: String,
        /// Input A (a card id).
        a: String,
        /// Input B (a card id).
        b: String,
        /// A value the formulas read, e.g. `--set global_entropy=30` (repeatable).
        #[arg(long = "set", value_name = "NAME=NUMBER")]
        sets: Vec<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Run even when some item files did not load (their items are missing; a loud warning
        /// says so). Without it, a project with files that did not load is refused.
        #[arg(long)]
        allow_broken: bool,
    },
    /// Run many seeded games and summarise them: outcomes and grades, lengths, act, node, option
    /// and skill counts, dead content, final values; optionally against a baseline summary.
    ///
    /// Example: actforge sim content/knucklebones --runs 10000 --seed 1 --json > before.json
    ///
    /// Across machines: `actforge sim PROJECT --runs 1000000 --shard 2/4 --json > shard-2.json`
    /// plays the 2nd of 4 slices of the runs; `actforge sim-merge shard-*.json` prints the summary.
    Sim(crate::sim::SimArgs),
    /// Fold the shards of a simulation (`actforge sim … --shard K/N --json`, all N) into the
    /// summary `actforge sim` prints for the whole simulation: text, --json or --csv.
    ///
    /// Example: actforge sim-merge shard-1.json shard-2.json shard-3.json shard-4.json --json
    SimMerge(crate::sim::MergeArgs),
    /// Print the JSON Schema of a bundle (FORMAT.md §4), generated from the model: other runtimes
    /// validate bundles and generate loaders with it. Versioned with the format (§10).
    ///
    /// Example: actforge schema -o actforge-bundle.schema.json
    Schema {
        /// Write the schema to this file (atomically) instead of printing it.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Merge three versions of a project file field by field: the git merge driver (README,
    /// "Teamwork with git"). Exits 0 on a clean merge; 1 when fields changed on both sides,
    /// written as a conflict file that `check` reports and the editor resolves side by side.
    ///
    /// Example (.git/config): driver = actforge merge %O %A %B -o %A --path %P
    Merge {
        /// The common ancestor's version (git's %O; missing or empty: added on both sides).
        base: PathBuf,
        /// Our version (git's %A).
        ours: PathBuf,
        /// Their version (git's %B).
        theirs: PathBuf,
        /// Where to write the result (default: over OURS, as git expects).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The file's path in the project (git's %P): says what the file holds.
        #[arg(long)]
        path: Option<PathBuf>,
    },
    /// Print how project B differs from project A: items added, removed and renamed, and the
    /// fields changed. A and B are project folders, bundles or git revisions (`REV:PATH`).
    ///
    /// Example: actforge diff HEAD~1:content/act-demo content/act-demo
    Diff {
        /// The project before.
        a: String,
        /// The project after.
        b: String,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite every file of a project in the canonical layout (as saving does).
    Fmt {
        /// Project folder.
        project: PathBuf,
        /// Only report files that are not canonical; exit 1 if any.
        #[arg(long)]
        check: bool,
    },
}

/// What `actforge import` can read.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Restore a project folder from a bundle (RON or JSON).
    Bundle {
        /// Bundle file.
        file: PathBuf,
        /// Folder to create (must be new or empty).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Turn Cultistlike content (Unity YAML `.asset` files with their `.meta` files) into a project.
    ///
    /// Example: actforge import cultistlike Demos/Demo1 -o kitten --token "Tea Party" --card "Somebody you Knew"
    Cultistlike {
        /// Folder holding the assets (Resources/…, Sos/…, sprites and script metas), searched at any depth.
        source: PathBuf,
        /// Folder to create (must be new or empty).
        #[arg(short, long)]
        output: PathBuf,
        /// A token on the table at the start, by asset name or id (repeatable). Without --token and
        /// --card, the demo scenes' start is used when the content has those names.
        #[arg(long = "token", value_name = "NAME")]
        tokens: Vec<String>,
        /// A card on the table at the start, by asset name or id (repeatable).
        #[arg(long = "card", value_name = "NAME")]
        cards: Vec<String>,
        /// Also copy the pictures the items use into the project (same paths as in SOURCE).
        #[arg(long)]
        copy_art: bool,
        /// Write the project even when the import reports errors (the broken parts are left out).
        #[arg(long)]
        force: bool,
    },
}

/// Bundle text format on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// RON (the default).
    Ron,
    /// JSON.
    Json,
}

impl From<FormatArg> for BundleFormat {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Ron => BundleFormat::Ron,
            FormatArg::Json => BundleFormat::Json,
        }
    }
}

/// Exit status of a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success (exit 0).
    Success,
    /// Errors in the content or the files (exit 1).
    Failure,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Self::Success => 0,
            Self::Failure => 1,
        }
    }
}

/// Runs a command, writing results to `out` and problems to `err`.
pub fn run(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    match command {
        Command::Check { project, errors_only } => check(&project, !errors_only, out, err),
        Command::Export { project, output, format, force, with_tests, lang } => {
            export(&project, &output, format.into(), ExportOptions { force, with_tests, languages: lang }, out, err)
        }
        Command::Strings(command) => crate::strings::strings(&command, out, err),
        Command::Import(ImportCommand::Bundle { file, output }) => match import_bundle(&file, &output) {
            Ok((loaded, report)) => {
                let problems = print_diagnostics(&loaded.diagnostics, true, err)?;
                writeln!(
                    out,
                    "restored {} items into {} ({} files written)",
                    loaded.project.item_count(),
                    output.display(),
                    report.written.len()
                )?;
                Ok(if problems { Exit::Failure } else { Exit::Success })
            }
            Err(error) => fail(&error, err),
        },
        Command::Import(ImportCommand::Cultistlike { source, output, tokens, cards, copy_art, force }) => {
            let options = CultistlikeOptions { start_tokens: tokens, start_cards: cards };
            import_cultistlike_command(&CultistlikeArgs { source, output, options, copy_art, force }, out, err)
        }
        Command::New { dir } => match create_project(&dir) {
            Ok(created) => {
                writeln!(out, "created project \"{}\" in {}", created.manifest.name, dir.display())?;
                Ok(Exit::Success)
            }
            Err(error) => fail(&error, err),
        },
        Command::Fmt { project, check } => fmt(&project, check, out, err),
        Command::Merge { base, ours, theirs, output, path } => {
            team::merge(&base, &ours, &theirs, output.as_deref(), path.as_deref(), out, err)
        }
        Command::Diff { a, b, json } => team::diff(&a, &b, json, out, err),
        Command::Schema { output } => schema(output.as_deref(), out, err),
        Command::Play {
            project,
            script_path,
            script,
            seed,
            until_ticks,
            queries,
            explain,
            trace,
            json,
            show_hidden,
            allow_broken,
        } => {
            let script = script.or(script_path);
            let args = PlayArgs {
                project,
                script,
                seed,
                until_ticks,
                queries,
                explain,
                trace,
                json,
                show_hidden,
                allow_broken,
            };
            play(&args, out, err)
        }
        Command::Sim(args) => crate::sim::sim(&args, out, err),
        Command::SimMerge(args) => crate::sim::sim_merge(&args, out, err),
        Command::Test { project, filter, json, max_sim_runs, allow_broken } => {
            crate::test::test(&crate::test::TestArgs { project, filter, json, max_sim_runs, allow_broken }, out, err)
        }
        Command::Synthesis { project, synthesis, a, b, sets, json, allow_broken } => {
            synth(&project, &synthesis, [&a, &b], &sets, (json, allow_broken), out, err)
        }
        Command::Eval { project, seed, sets, defines, parse, formula, allow_broken } => {
            eval(&EvalArgs { project, seed, sets, defines, parse, formula, allow_broken }, out, err)
        }
    }
}

/// `actforge schema`: the bundle's JSON Schema on `out`, or written atomically to `output`.
fn schema(output: Option<&Path>, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let text = actforge_runtime::schema::bundle_schema_text();
    let Some(path) = output else {
        out.write_all(text.as_bytes())?;
        return Ok(Exit::Success);
    };
    match project::write_atomic(path, text.as_bytes()) {
        Ok(()) => {
            writeln!(out, "wrote the bundle schema (version {}) to {}", SCHEMA_VERSION, path.display())?;
            Ok(Exit::Success)
        }
        Err(error) => {
            writeln!(err, "error: {}: {error}", path.display())?;
            Ok(Exit::Failure)
        }
    }
}

/// The arguments of `actforge play`.
struct PlayArgs {
    project: PathBuf,
    script: Option<PathBuf>,
    seed: Option<u64>,
    until_ticks: Option<u64>,
    queries: Vec<String>,
    explain: Vec<String>,
    trace: bool,
    json: bool,
    /// List hidden aspects too (debug).
    show_hidden: bool,
    allow_broken: bool,
}

fn play(args: &PlayArgs, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let loaded = match open_whole(&args.project, args.allow_broken, err)? {
        Ok(loaded) => loaded,
        Err(exit) => return Ok(exit),
    };
    let text = match &args.script {
        None => String::new(),
        Some(script) => match std::fs::read_to_string(script) {
            Ok(text) => text,
            Err(error) => {
                writeln!(err, "error: {}: {error}", script.display())?;
                return Ok(Exit::Failure);
            }
        },
    };
    let seed = args
        .seed
        .or_else(|| actforge_runtime::engine::script::script_seed(&text))
        .unwrap_or(loaded.project.manifest.settings.seed);
    let mut session = match Session::new(loaded.project, seed) {
        Ok(session) => session,
        Err(error) => {
            print_diagnostics(&error.problems, true, err)?;
            writeln!(err, "error: the project cannot be played until these errors are fixed")?;
            return Ok(Exit::Failure);
        }
    };
    let mut report = ScriptReport::default();
    let result = session.run_script_into(&text, &mut report);
    if result.is_ok()
        && let Some(until) = args.until_ticks
    {
        let waited = until.saturating_sub(session.state().tick);
        if let Err(error) = session.run_script_into(&format!("wait {waited}"), &mut report) {
            writeln!(err, "error: {}", error.message)?;
        }
    }
    let queries: Vec<(String, Result<f64, String>)> =
        args.queries.iter().map(|formula| (formula.clone(), session.query(formula))).collect();
    let script_name = args.script.as_ref().map_or_else(String::new, |script| script.display().to_string());
    let failed = result.as_ref().err().map(|error| format!("{script_name}:{error}"));
    let bad_query = queries.iter().any(|(_, value)| value.is_err());
    if args.json {
        let json = play_json(&session, seed, &report, &queries, failed.as_deref(), (args.trace, args.show_hidden));
        writeln!(out, "{json:#}")?;
    } else {
        for line in &report.log {
            writeln!(out, "{line}")?;
        }
        if args.trace {
            writeln!(out, "events:")?;
            for logged in &report.events {
                writeln!(out, "  [{:>6}] {:?}", logged.tick, logged.event)?;
            }
        }
        write_table(&session, args.show_hidden, out)?;
        for (formula, value) in &queries {
            match value {
                Ok(value) => writeln!(out, "{formula} = {}", show_value(*value, None))?,
                Err(message) => writeln!(err, "error: query {formula}:\n{message}")?,
            }
        }
        for subject in &args.explain {
            match session.parse_subject(subject).and_then(|parsed| session.explain(&parsed)) {
                Ok(why) if why.is_empty() => writeln!(out, "{subject} is possible now")?,
                Ok(why) => {
                    writeln!(out, "why not {subject}:")?;
                    for reason in why {
                        writeln!(out, "  {reason}")?;
                    }
                }
                Err(message) => writeln!(err, "error: --explain {subject}: {message}")?,
            }
        }
        if failed.is_none() && args.script.is_some() {
            writeln!(out, "ok: {} expectation(s) held", report.expectations)?;
        }
    }
    if let Some(failed) = &failed {
        writeln!(err, "{failed}")?;
    }
    Ok(if failed.is_some() || bad_query { Exit::Failure } else { Exit::Success })
}

/// The result of `actforge play --json`: what FORMAT.md §7 documents.
fn play_json(
    session: &Session,
    seed: u64,
    report: &ScriptReport,
    queries: &[(String, Result<f64, String>)],
    failed: Option<&str>,
    (trace, show_hidden): (bool, bool),
) -> serde_json::Value {
    use serde_json::json;
    let bar = |shown: Vec<actforge_runtime::engine::AspectShown>| -> serde_json::Map<String, serde_json::Value> {
        shown.into_iter().map(|entry| (entry.aspect.to_string(), json!(entry.count))).collect()
    };
    let state = session.state();
    let tokens: Vec<serde_json::Value> = state
        .windows
        .iter()
        .map(|(key, window)| {
            let act = match &window.status {
                Status::Ready(act) => Some(act),
                Status::Running => window.active.as_ref(),
                Status::Idle | Status::Finished => None,
            };
            json!({
                "key": key.0, "token": window.token, "status": window.status, "act": act,
                "alt": window.pending_alt, "title": window.title, "text": window.text, "end_text": window.end_text,
                "timer_end": window.timer_end, "aspects": bar(session.window_aspects(*key, show_hidden)),
            })
        })
        .collect();
    let cards: Vec<serde_json::Value> = state
        .cards
        .iter()
        .map(|(key, card)| {
            json!({
                "key": key.0, "card": card.card, "place": session.describe_place(*key),
                "aspects": bar(session.card_aspects(*key, show_hidden)),
            })
        })
        .collect();
    let queries: Vec<serde_json::Value> = queries
        .iter()
        .map(|(formula, value)| match value {
            Ok(value) if value.is_finite() => json!({ "query": formula, "value": value }),
            Ok(value) => json!({ "query": formula, "value": show_value(*value, None) }),
            Err(message) => json!({ "query": formula, "error": message }),
        })
        .collect();
    let mut json = json!({
        "seed": seed,
        "tick": state.tick,
        "ok": failed.is_none(),
        "error": failed,
        "expectations": report.expectations,
        "outcome": state.outcome,
        "log": report.log,
        "queries": queries,
        "tokens": tokens,
        "cards": cards,
    });
    if let Some(battle) = session.tactics()
        && let Some(object) = json.as_object_mut()
    {
        let units: Vec<serde_json::Value> = battle
            .units()
            .map(|(key, unit)| {
                let stats: serde_json::Map<String, serde_json::Value> = unit
                    .stats
                    .keys()
                    .filter_map(|name| Some((name.clone(), json!(battle.stat(key, name).filter(|v| v.is_finite())?))))
                    .collect();
                let statuses: Vec<serde_json::Value> =
                    unit.statuses.iter().map(|s| json!({ "name": s.name, "remaining": s.remaining })).collect();
                json!({
                    "key": key, "unit": unit.unit, "team": unit.team, "defeated": unit.defeated,
                    "at": [unit.spot.cell_x, unit.spot.cell_y, unit.spot.level], "facing": unit.facing,
                    "stats": stats, "statuses": statuses, "equipment": unit.equipment,
                })
            })
            .collect();
        object.insert(
            "battle".to_owned(),
            json!({ "tick": battle.tick, "turn": battle.active_unit(), "winner": battle.winner(), "units": units }),
        );
    }
    if let Some(turns) = session.turns()
        && let Some(object) = json.as_object_mut()
    {
        let stats = session.turn_stats(true);
        object.insert("turns".to_owned(), json!({ "state": turns, "stats": stats }));
    }
    if let Some(campaign) = session.campaign()
        && let Some(object) = json.as_object_mut()
    {
        object.insert("campaign".to_owned(), json!(campaign));
    }
    if trace && let Some(object) = json.as_object_mut() {
        object.insert("events".to_owned(), json!(report.events));
    }
    json
}

/// The table in words: tokens with status, title, text and aspect bar, then where every card
/// is with its aspects; hidden aspects only with `show_hidden`.
fn write_table(session: &Session, show_hidden: bool, out: &mut dyn Write) -> std::io::Result<()> {
    use actforge_runtime::engine::describe_aspects;
    let state = session.state();
    let with_bar = |bar: String| if bar.is_empty() { bar } else { format!("; aspects {bar}") };
    writeln!(out, "at tick {}:", state.tick)?;
    for (key, window) in &state.windows {
        writeln!(
            out,
            "  token {} #{}: {:?} \"{}\" {:?}{}",
            window.token,
            key.0,
            window.status,
            window.title,
            window.text,
            with_bar(describe_aspects(&session.window_aspects(*key, show_hidden)))
        )?;
    }
    for (key, card) in &state.cards {
        if !matches!(card.place, Place::InCard(_)) {
            let bar = with_bar(describe_aspects(&session.card_aspects(*key, show_hidden)));
            writeln!(out, "  card {} #{}: {}{bar}", card.card, key.0, session.describe_place(*key))?;
        }
    }
    for line in session.describe_turns() {
        writeln!(out, "{line}")?;
    }
    for line in session.describe_campaign() {
        writeln!(out, "{line}")?;
    }
    if let Some(outcome) = &state.outcome {
        writeln!(out, "outcome: {outcome:?}")?;
    }
    if let Some(boards) = session.board() {
        write!(out, "{}", actforge_runtime::engine::board::describe_boards(boards, show_hidden))?;
        write_board_scores(session, boards, out)?;
    }
    write_battle(session, out)
}

/// Every board's score (its `score` formula), its column scores and what the formula adds
/// beyond them (e.g. a diagonal bonus), then the winner once the game has ended.
fn write_board_scores(
    session: &Session,
    boards: &actforge_runtime::engine::board::BoardState,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let value = |formula: String| session.query(&formula).map_or(0, |value| value.round() as i64);
    for side in &boards.game.sides {
        let id = side.board.as_str();
        let total = value(format!("board.{id}.score"));
        let columns: Vec<i64> =
            (1..=side.columns).map(|column| value(format!("board.{id}.col{column}.score"))).collect();
        let bonus = total - columns.iter().sum::<i64>();
        let columns: Vec<String> = columns.iter().map(ToString::to_string).collect();
        writeln!(out, "  score {id}: {total} (columns {}, bonus {bonus})", columns.join(" "))?;
    }
    if let Some(outcome) = &boards.game.outcome {
        match &outcome.winner {
            Some(winner) => writeln!(out, "  winner: {winner}")?,
            None => writeln!(out, "  winner: draw")?,
        }
    }
    Ok(())
}

/// The battle in words (FORMAT.md §12): the turn, the winner and every unit.
fn write_battle(session: &Session, out: &mut dyn Write) -> std::io::Result<()> {
    let Some(battle) = session.tactics() else { return Ok(()) };
    let turn = battle.active_unit().unwrap_or("none");
    let winner = battle.winner().unwrap_or("none");
    writeln!(out, "battle on {} at scheduler tick {}: turn {turn}, winner {winner}", battle.map(), battle.tick)?;
    for (key, unit) in battle.units() {
        let stat = |name: &str| battle.stat(key, name).map_or_else(|| "-".to_owned(), |value| show_value(value, None));
        let statuses: Vec<String> = unit
            .statuses
            .iter()
            .map(|status| match &status.worn {
                // A worn status does not count down: say what it comes with instead.
                Some(item) => format!("{} (while {item} is worn)", status.name),
                None => format!("{} ({} ticks)", status.name, status.remaining),
            })
            .collect();
        let (x, y, z) = (unit.spot.cell_x, unit.spot.cell_y, unit.spot.level);
        let state = if unit.defeated { " defeated" } else { "" };
        let equipment: Vec<&str> = unit.equipment.iter().map(actforge_runtime::Id::as_str).collect();
        let wields = if equipment.is_empty() { String::new() } else { format!(", wields {}", equipment.join(", ")) };
        writeln!(
            out,
            "  unit {key} ({}) at {x} {y} {z}{state}: hp {}, ct {} [{}]{wields}",
            unit.team,
            stat("hp"),
            stat("ct"),
            statuses.join(", ")
        )?;
    }
    Ok(())
}

/// The arguments of `actforge import cultistlike`.
struct CultistlikeArgs {
    source: PathBuf,
    output: PathBuf,
    options: CultistlikeOptions,
    copy_art: bool,
    force: bool,
}

fn import_cultistlike_command(
    args: &CultistlikeArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Exit> {
    let imported = match import_cultistlike_with(&args.source, &args.options) {
        Ok(imported) => imported,
        Err(error) => {
            writeln!(err, "error: {error}")?;
            return Ok(Exit::Failure);
        }
    };
    let failed = print_diagnostics(&imported.diagnostics, true, err)?;
    if failed && !args.force {
        writeln!(err, "error: nothing was written because of the errors above (use --force to write anyway)")?;
        return Ok(Exit::Failure);
    }
    let report = match save_new_folder(&imported.project, &args.output) {
        Ok(report) => report,
        Err(error) => return fail(&error, err),
    };
    let copied = if args.copy_art {
        match copy_files(&args.source, &args.output, &imported.art) {
            Ok(copied) => copied,
            Err(error) => {
                writeln!(err, "error: {error}")?;
                return Ok(Exit::Failure);
            }
        }
    } else {
        0
    };
    writeln!(
        out,
        "imported {} items from {} into {} ({} files written{})",
        imported.project.item_count(),
        args.source.display(),
        args.output.display(),
        report.written.len(),
        if args.copy_art { format!(", {copied} pictures copied") } else { String::new() }
    )?;
    if !args.copy_art && !imported.art.is_empty() {
        writeln!(
            out,
            "the items name {} pictures by their paths in {}; copy them into the project (or import with --copy-art) \
             to see them",
            imported.art.len(),
            args.source.display()
        )?;
    }
    // The importer's output must validate; say so loudly if it does not.
    match load_and_validate(&args.output) {
        Ok((_, diagnostics)) => {
            let invalid = print_diagnostics(&diagnostics, false, err)?;
            Ok(if invalid || failed { Exit::Failure } else { Exit::Success })
        }
        Err(error) => fail(&error, err),
    }
}

/// The arguments of `actforge eval`.
struct EvalArgs {
    project: Option<PathBuf>,
    seed: u64,
    sets: Vec<String>,
    defines: Vec<String>,
    parse: bool,
    formula: String,
    allow_broken: bool,
}

/// `NAME=NUMBER` values of `--set`, or the message for the first that is not one.
fn parse_sets(sets: &[String]) -> Result<BTreeMap<String, f64>, String> {
    let mut values = BTreeMap::new();
    for set in sets {
        let parsed =
            set.split_once('=').and_then(|(name, value)| Some((name.trim(), value.trim().parse::<f64>().ok()?)));
        let Some((name, value)) = parsed else {
            return Err(format!("`--set {set}`: write NAME=NUMBER, e.g. --set c.PA=7"));
        };
        values.insert(name.to_owned(), value);
    }
    Ok(values)
}

fn synth(
    project: &Path,
    synthesis: &str,
    [a, b]: [&str; 2],
    sets: &[String],
    (json, allow_broken): (bool, bool),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Exit> {
    let values = match parse_sets(sets) {
        Ok(values) => values,
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    };
    let loaded = match open_whole(project, allow_broken, err)? {
        Ok(loaded) => loaded,
        Err(exit) => return Ok(exit),
    };
    let table = match probability_table(&loaded.project, synthesis, a, b, &values) {
        Ok(table) => table,
        Err(error) => {
            writeln!(err, "error: {error}")?;
            return Ok(Exit::Failure);
        }
    };
    if json {
        let json = serde_json::json!({
            "synthesis": synthesis, "a": a, "b": b, "temperature": table.temperature,
            "shared_tags": table.shared_tags, "failure": table.failure(),
            "candidates": table.candidates.iter().map(|c| serde_json::json!({
                "card": c.card, "score": c.score, "share": c.share, "success": c.success / 100.0, "overall": c.overall(),
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{json:#}")?;
        return Ok(Exit::Success);
    }
    writeln!(out, "synthesis {synthesis}: {a} + {b} (temperature {})", show_value(table.temperature, None))?;
    if !table.shared_tags {
        writeln!(out, "no candidate shares a tag with the inputs: every card of the deck is equally likely")?;
    }
    let width = table.candidates.iter().map(|c| c.card.as_str().len()).max().unwrap_or(0).max("candidate".len());
    writeln!(out, "{:width$}  {:>8}  {:>7}  {:>7}  {:>7}", "candidate", "score", "share", "success", "overall")?;
    for candidate in &table.candidates {
        writeln!(
            out,
            "{:width$}  {:>8}  {:>6.1}%  {:>6.1}%  {:>6.1}%",
            candidate.card.as_str(),
            show_value(candidate.score, None),
            candidate.share * 100.0,
            candidate.success,
            candidate.overall() * 100.0
        )?;
    }
    writeln!(out, "{:width$}  {:>8}  {:>7}  {:>7}  {:>6.1}%", "(fails)", "", "", "", table.failure() * 100.0)?;
    Ok(Exit::Success)
}

fn eval(args: &EvalArgs, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    if args.parse {
        return match formula::canonical_text(&args.formula) {
            Ok(canonical) => {
                writeln!(out, "{canonical}")?;
                Ok(Exit::Success)
            }
            Err(error) => {
                writeln!(err, "error: {}", error.render(&args.formula))?;
                Ok(Exit::Failure)
            }
        };
    }
    let mut query = Query { seed: args.seed, ..Query::default() };
    match parse_sets(&args.sets) {
        Ok(values) => query.values = values,
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    }
    for define in &args.defines {
        let Some((name, text)) = define.split_once('=') else {
            writeln!(err, "error: `--define {define}`: write NAME=FORMULA, e.g. --define dmg=c.PA*2")?;
            return Ok(Exit::Failure);
        };
        let name = name.trim();
        let valid = !name.is_empty()
            && name.split('.').all(|part| {
                part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if !valid {
            writeln!(err, "error: `--define {define}`: NAME must be letters, digits and `_`, parts joined by `.`")?;
            return Ok(Exit::Failure);
        }
        query.defines.push((name.to_owned(), text.to_owned()));
    }
    let loaded = match &args.project {
        Some(path) => match open_whole(path, args.allow_broken, err)? {
            Ok(loaded) => Some(loaded),
            Err(exit) => return Ok(exit),
        },
        None => None,
    };
    query.project = loaded.as_ref().map(|loaded| &loaded.project);
    match query::evaluate(&args.formula, &query) {
        Ok(value) => {
            writeln!(out, "{}", show_value(value, None))?;
            Ok(Exit::Success)
        }
        Err(QueryError::BadName { text, error }) => {
            writeln!(err, "error in --set {text}: {}", error.render(&text))?;
            Ok(Exit::Failure)
        }
        Err(QueryError::Named { name, text, error }) => {
            writeln!(err, "error in f.{name}: {}", error.render(&text))?;
            Ok(Exit::Failure)
        }
        Err(QueryError::Formula { error }) => {
            writeln!(err, "error: {}", error.render(&args.formula))?;
            Ok(Exit::Failure)
        }
    }
}

/// Opens a project to run it: a file that did not load (its items would be missing, and the
/// game would run without them unseen) refuses the command unless `allow_broken`, which runs
/// without them after a loud warning. The load problems are printed either way.
pub(crate) fn open_whole(
    path: &Path,
    allow_broken: bool,
    err: &mut dyn Write,
) -> std::io::Result<Result<Loaded, Exit>> {
    let loaded = match open_project(path) {
        Ok(loaded) => loaded,
        Err(error) => return fail(&error, err).map(Err),
    };
    if !print_diagnostics(&loaded.diagnostics, false, err)? {
        return Ok(Ok(loaded));
    }
    let broken = loaded.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    if allow_broken {
        writeln!(
            err,
            "warning: running WITHOUT what the {broken} problem(s) above kept from loading (--allow-broken): \
             results may not match the project"
        )?;
        return Ok(Ok(loaded));
    }
    writeln!(
        err,
        "error: {} did not load whole ({broken} problem(s) above); fix them, or pass --allow-broken to run \
         without what did not load",
        path.display()
    )?;
    Ok(Err(Exit::Failure))
}

pub(crate) fn fail(error: &ProjectError, err: &mut dyn Write) -> std::io::Result<Exit> {
    writeln!(err, "error: {error}")?;
    Ok(Exit::Failure)
}

/// Prints diagnostics (warnings and notes only if `warnings`); returns whether any is an error.
pub(crate) fn print_diagnostics(
    diagnostics: &[Diagnostic],
    warnings: bool,
    err: &mut dyn Write,
) -> std::io::Result<bool> {
    for diagnostic in diagnostics {
        if warnings || diagnostic.is_error() {
            writeln!(err, "{diagnostic}")?;
        }
    }
    Ok(has_errors(diagnostics))
}

/// Loads and validates: all diagnostics, load problems first.
fn load_and_validate(path: &Path) -> Result<(Loaded, Vec<Diagnostic>), ProjectError> {
    let loaded = open_project(path)?;
    let root = path.is_dir().then_some(path);
    let mut diagnostics = loaded.diagnostics.clone();
    diagnostics.extend(validate(&loaded.project, &loaded.sources, root));
    diagnostics.extend(actforge_runtime::locale::check_locales(&loaded.project, root));
    Ok((loaded, diagnostics))
}

fn check(path: &Path, warnings: bool, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let (loaded, diagnostics) = match load_and_validate(path) {
        Ok(result) => result,
        Err(error) => return fail(&error, err),
    };
    // Diagnostics are the result of `check`, so they go to stdout (one per line, grep-able).
    let failed = print_diagnostics(&diagnostics, warnings, out)?;
    let count = |severity| diagnostics.iter().filter(|d| d.severity == severity).count();
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .filter(|kind| loaded.project.count(**kind) > 0)
        .map(|kind| {
            let count = loaded.project.count(*kind);
            let noun = if count == 1 { kind.label() } else { kind.plural_label() };
            format!("{count} {}", noun.to_lowercase())
        })
        .collect();
    writeln!(
        err,
        "{}: {} errors, {} warnings; {} items ({})",
        path.display(),
        count(Severity::Error),
        count(Severity::Warning),
        loaded.project.item_count(),
        kinds.join(", ")
    )?;
    Ok(if failed { Exit::Failure } else { Exit::Success })
}

/// What `actforge export` does besides writing the items.
struct ExportOptions {
    /// Write even when validation finds errors.
    force: bool,
    /// Carry the project's playtests.
    with_tests: bool,
    /// The languages to carry (`None`: all).
    languages: Option<Vec<String>>,
}

fn export(
    path: &Path,
    output: &Path,
    format: BundleFormat,
    options: ExportOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Exit> {
    let ExportOptions { force, with_tests, languages } = options;
    let (mut loaded, mut diagnostics) = match load_and_validate(path) {
        Ok(result) => result,
        Err(error) => return fail(&error, err),
    };
    if let Some(languages) = languages {
        let languages: Vec<String> = languages.into_iter().filter(|language| language != "none").collect();
        let known = actforge_runtime::locale::saved_languages(&loaded.project);
        if let Some(unknown) = languages.iter().find(|language| !known.contains(language.as_str())) {
            let known: Vec<&str> = known.into_iter().collect();
            writeln!(
                err,
                "error: `{unknown}` is not a language of the project (it has: {})",
                if known.is_empty() { "none".to_owned() } else { known.join(", ") }
            )?;
            return Ok(Exit::Failure);
        }
        let project = &mut loaded.project;
        project.locales.retain(|language, _| languages.contains(language));
        project.manifest.localisation.languages.retain(|language| languages.contains(language));
        // Only the languages exported are checked: a problem in one left out stops nothing.
        let locales_folder = path.join(actforge_runtime::locale::LOCALES_FOLDER);
        diagnostics.retain(|d| d.file.as_ref().is_none_or(|file| !file.starts_with(&locales_folder)));
        let root = path.is_dir().then_some(path);
        let translations = actforge_runtime::locale::check_locales(project, root);
        diagnostics.extend(
            translations.into_iter().filter(|d| d.file.as_ref().is_some_and(|f| f.starts_with(&locales_folder))),
        );
    }
    let failed = print_diagnostics(&diagnostics, false, err)?;
    if failed && !force {
        writeln!(err, "error: not exported because of the errors above (use --force to export anyway)")?;
        return Ok(Exit::Failure);
    }
    let tests = if with_tests && path.is_dir() {
        match crate::test::folder_tests(path) {
            Ok(tests) => tests,
            Err(error) => {
                writeln!(err, "error: {}: {error}", path.join(crate::test::TESTS_FOLDER).display())?;
                return Ok(Exit::Failure);
            }
        }
    } else {
        BTreeMap::new()
    };
    if let Err(error) = project::export_bundle_with_tests(&loaded.project, &tests, output, format) {
        return fail(&error, err);
    }
    let carried = if tests.is_empty() { String::new() } else { format!(" with {} playtest(s)", tests.len()) };
    let languages: Vec<&str> = loaded.project.locales.keys().map(String::as_str).collect();
    let carried =
        if languages.is_empty() { carried } else { format!("{carried} (languages: {})", languages.join(", ")) };
    writeln!(out, "exported {} items{carried} to {}", loaded.project.item_count(), output.display())?;
    Ok(Exit::Success)
}

fn fmt(path: &Path, check_only: bool, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let loaded = match load_folder(path) {
        Ok(loaded) => loaded,
        Err(error) => return fail(&error, err),
    };
    let problems = print_diagnostics(&loaded.diagnostics, false, err)?;
    if check_only {
        let files = match project::render_files(&loaded.project) {
            Ok(files) => files,
            Err(error) => return fail(&error, err),
        };
        let mut differing = 0;
        for (relative, text) in files {
            let full = path.join(&relative);
            if std::fs::read(&full).map_or(true, |old| old != text.as_bytes()) {
                writeln!(out, "{}: not in canonical layout", full.display())?;
                differing += 1;
            }
        }
        return Ok(if differing > 0 || problems { Exit::Failure } else { Exit::Success });
    }
    match save_folder(&loaded.project, path, &loaded.protected) {
        Ok(report) => {
            for file in &report.written {
                writeln!(out, "formatted {}", path.join(file).display())?;
            }
            for file in &report.skipped {
                writeln!(err, "skipped {} (it did not load; fix it first)", path.join(file).display())?;
            }
            Ok(if problems { Exit::Failure } else { Exit::Success })
        }
        Err(error) => fail(&error, err),
    }
}

/// Parses `args` (program name first) and runs the command; `None` means "open the editor".
pub fn run_args<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> Result<Option<Exit>, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    match cli.command {
        Some(command) => Ok(Some(run(command, out, err).unwrap_or(Exit::Failure))),
        None => Ok(None),
    }
}
