//! `actforge sim`: Monte Carlo runs of a project with a progress bar, printed as text, JSON or
//! CSV, and compared with a baseline summary; `--shard K/N` plays one slice of the runs and
//! `actforge sim-merge` folds the slices into the same summary.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actforge_runtime::engine::Content;
use actforge_runtime::sim::shard::{Shard, merge, parse_spec, read_shard, simulate_shard};
use actforge_runtime::sim::{Change, Distribution, Policy, Progress, SimError, SimOptions, Summary, diff, simulate};

use actforge_runtime::number::{show_short, show_value};

use crate::Exit;

/// The arguments of `actforge sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Project folder or bundle file.
    pub project: PathBuf,
    /// Number of runs.
    #[arg(long, default_value_t = 1000)]
    pub runs: usize,
    /// Seed of the first run (default: the project's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The player: `random`, `greedy`, `script FILE` (the script's inputs, then random play), or
    /// one policy per board side in entry order, e.g. `random,greedy`.
    #[arg(long, num_args = 1..=2, value_names = ["POLICY", "FILE"], default_values_t = ["random".to_owned()])]
    pub policy: Vec<String>,
    /// The formula greedy play maximises (board content has a built-in one).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub score: Option<String>,
    /// Moves after which a run stops as `unfinished`.
    #[arg(long, default_value_t = 2000)]
    pub max_moves: usize,
    /// Run even when some item files did not load (their items are missing; a loud warning
    /// says so). Without it, a project with files that did not load is refused.
    #[arg(long)]
    pub allow_broken: bool,
    /// Engine steps (actions, expiries, act completions) after which a run stops as `cut`.
    #[arg(long, default_value_t = actforge_runtime::sim::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    /// Worker threads (default: one per core). The summary does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// How the summary is printed.
    #[command(flatten)]
    pub output: SummaryOutput,
    /// Play only the K-th of N contiguous slices of the runs (1 ≤ K ≤ N) and print a shard
    /// (FORMAT.md §15) for `actforge sim-merge`: needs --json; --csv and --baseline belong to
    /// sim-merge, which prints the summary.
    #[arg(long, value_name = "K/N", value_parser = shard_spec, requires = "json", conflicts_with_all = ["csv", "baseline"])]
    pub shard: Option<(usize, usize)>,
}

/// How `sim` and `sim-merge` print the summary.
#[derive(Debug, clap::Args)]
pub struct SummaryOutput {
    /// Print the summary as JSON (FORMAT.md §15).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the summary as CSV rows `section,name,value`.
    #[arg(long)]
    pub csv: bool,
    /// A summary saved earlier with --json: also print what moved since.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

/// The arguments of `actforge sim-merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard files printed by `actforge sim --shard K/N --json`, all N of them, in any order.
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<PathBuf>,
    /// How the summary is printed.
    #[command(flatten)]
    pub output: SummaryOutput,
}

fn shard_spec(spec: &str) -> Result<(usize, usize), String> {
    parse_spec(spec).map_err(|error| error.to_string())
}

/// Reads a summary saved with `--json`; the error names the file.
fn read_baseline(path: &std::path::Path) -> Result<Summary, String> {
    std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|text| {
            serde_json::from_str::<Summary>(&text)
                .map_err(|error| format!("not a summary (actforge sim --json): {error}"))
        })
        .map_err(|message| format!("{}: {message}", path.display()))
}

/// Runs `actforge sim`.
pub fn sim(args: &SimArgs, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let loaded = match crate::open_whole(&args.project, args.allow_broken, err)? {
        Ok(loaded) => loaded,
        Err(exit) => return Ok(exit),
    };
    let policy = match policy(args) {
        Ok(policy) => policy,
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    };
    let baseline = match args.output.baseline.as_deref().map(read_baseline).transpose() {
        Ok(baseline) => baseline,
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    };
    let seed = args.seed.unwrap_or(loaded.project.manifest.settings.seed);
    let content = match Content::compile(loaded.project) {
        Ok(content) => Arc::new(content),
        Err(error) => {
            for problem in &error.problems {
                writeln!(err, "{problem}")?;
            }
            writeln!(err, "error: the project cannot be played until these errors are fixed")?;
            return Ok(Exit::Failure);
        }
    };
    let options = SimOptions {
        runs: args.runs,
        seed,
        policy,
        max_moves: args.max_moves,
        max_steps: args.max_steps,
        threads: args.threads,
    };
    let started = Instant::now();
    let progress = Progress::default();
    let bar_length = args
        .shard
        .map_or(args.runs, |(shard, shards)| actforge_runtime::sim::shard::shard_runs(args.runs, shard, shards).len());
    let result = with_progress(bar_length, &progress, || match args.shard {
        Some((shard, shards)) => {
            simulate_shard(&content, &options, shard, shards, &progress).map(|shard| Played::Shard(Box::new(shard)))
        }
        None => simulate(&content, &options, &progress).map(|summary| Played::Summary(Box::new(summary))),
    });
    let elapsed = started.elapsed();
    let summary = match result {
        Ok(Ok(Played::Summary(summary))) => *summary,
        Ok(Ok(Played::Shard(shard))) => {
            // Compact: a shard carries one record per run.
            serde_json::to_writer(&mut *out, &shard).map_err(std::io::Error::other)?;
            writeln!(out)?;
            return Ok(Exit::Success);
        }
        Ok(Err(error)) => {
            writeln!(err, "error: {error}")?;
            return Ok(Exit::Failure);
        }
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    };
    let rate = summary.runs as f64 / elapsed.as_secs_f64().max(1e-9);
    let footer = format!("\n{} runs in {:.2} s ({rate:.0} runs/s)\n", summary.runs, elapsed.as_secs_f64());
    print_summary(&summary, baseline.as_ref(), (args.output.json, args.output.csv), &footer, out)?;
    Ok(Exit::Success)
}

/// What a simulation played: the whole summary, or one shard of it.
enum Played {
    Summary(Box<Summary>),
    Shard(Box<Shard>),
}

/// Runs `work` on a worker thread with a progress bar of `runs` runs, drawn only when standard
/// error is a terminal. A worker that panicked is a bug, not a cancel: the error says so, with
/// how far it got.
fn with_progress<T: Send>(
    runs: usize,
    progress: &Progress,
    work: impl FnOnce() -> Result<T, SimError> + Send,
) -> Result<Result<T, SimError>, String> {
    std::thread::scope(|scope| {
        let worker = scope.spawn(work);
        let bar = indicatif::ProgressBar::new(runs as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs  {per_sec}  eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        while !worker.is_finished() {
            bar.set_position(progress.done() as u64);
            std::thread::sleep(Duration::from_millis(50));
        }
        bar.finish_and_clear();
        worker.join().map_err(|_| format!("the simulation stopped unexpectedly after {} runs", progress.done()))
    })
}

/// Prints a summary as text (then `footer`), JSON or CSV, with what moved since `baseline`.
fn print_summary(
    summary: &Summary,
    baseline: Option<&Summary>,
    (json, csv_out): (bool, bool),
    footer: &str,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let changes = baseline.map(|baseline| diff(baseline, summary));
    if json {
        let mut json = serde_json::to_value(summary).unwrap_or_default();
        if let (Some(changes), Some(object)) = (&changes, json.as_object_mut()) {
            object.insert("changes".to_owned(), serde_json::to_value(changes).unwrap_or_default());
        }
        writeln!(out, "{json:#}")?;
    } else if csv_out {
        out.write_all(csv(summary, changes.as_deref()).as_bytes())?;
    } else {
        out.write_all(text(summary, changes.as_deref()).as_bytes())?;
        out.write_all(footer.as_bytes())?;
    }
    Ok(())
}

/// Runs `actforge sim-merge`: reads every shard, checks that they are the N slices of one
/// simulation, and prints the summary `actforge sim` prints for it (the text's last line says
/// how many shards were merged where `sim` says how long it took).
pub fn sim_merge(args: &MergeArgs, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let baseline = match args.output.baseline.as_deref().map(read_baseline).transpose() {
        Ok(baseline) => baseline,
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    };
    let mut shards = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        let file = path.display().to_string();
        let shard = std::fs::read_to_string(path)
            .map_err(|error| format!("{file}: {error}"))
            .and_then(|text| read_shard(&file, &text).map_err(|error| error.to_string()));
        match shard {
            Ok(shard) => shards.push((file, shard)),
            Err(message) => {
                writeln!(err, "error: {message}")?;
                return Ok(Exit::Failure);
            }
        }
    }
    let summary = match merge(&shards) {
        Ok(summary) => summary,
        Err(error) => {
            writeln!(err, "error: {error}")?;
            return Ok(Exit::Failure);
        }
    };
    let footer = format!("\n{} runs merged from {} shards\n", summary.runs, shards.len());
    print_summary(&summary, baseline.as_ref(), (args.output.json, args.output.csv), &footer, out)?;
    Ok(Exit::Success)
}

fn policy(args: &SimArgs) -> Result<Policy, String> {
    match args.policy.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["random"] => Ok(Policy::Random),
        [sides] if sides.contains(',') => sides
            .split(',')
            .map(|side| match side.trim() {
                "random" => Ok(Policy::Random),
                "greedy" => Ok(Policy::Greedy { score: args.score.clone() }),
                other => Err(format!("unknown side policy `{other}`: each side plays random or greedy")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Policy::Sides),
        ["greedy"] => Ok(Policy::Greedy { score: args.score.clone() }),
        ["script", file] => std::fs::read_to_string(file)
            .map(|text| Policy::Script(text.into()))
            .map_err(|error| format!("{file}: {error}")),
        ["script"] => Err("--policy script needs the script file: --policy script FILE".to_owned()),
        other => Err(format!("unknown policy `{}`: use random, greedy or script FILE", other.join(" "))),
    }
}

fn percent(count: usize, runs: usize) -> f64 {
    if runs == 0 { 0.0 } else { count as f64 * 100.0 / runs as f64 }
}

fn distribution_line(name: &str, distribution: &Distribution) -> String {
    if distribution.count == 0 {
        return format!("  {name:28} (no value)\n");
    }
    format!(
        "  {name:28} mean {:>9}  min {:>7}  p10 {:>7}  median {:>7}  p90 {:>7}  max {:>7}\n",
        show_short(distribution.mean),
        show_short(distribution.min),
        show_short(distribution.p10),
        show_short(distribution.median),
        show_short(distribution.p90),
        show_short(distribution.max)
    )
}

/// The summary in words.
pub fn text(summary: &Summary, changes: Option<&[Change]>) -> String {
    let mut out = String::new();
    let runs = summary.runs;
    let _ = writeln!(out, "{runs} runs, first seed {}, {} play", summary.seed, summary.policy);
    let _ = writeln!(out, "\noutcomes");
    for (outcome, count) in &summary.outcomes {
        let _ = writeln!(out, "  {outcome:28} {count:>7}  {:5.1}%", percent(*count, runs));
    }
    if !summary.grades.is_empty() {
        let _ = writeln!(out, "\ngrades");
        for (grade, count) in &summary.grades {
            let _ = writeln!(out, "  {grade:28} {count:>7}  {:5.1}%", percent(*count, runs));
        }
    }
    let _ = writeln!(out, "\nlengths");
    out.push_str(&distribution_line("moves", &summary.moves));
    out.push_str(&distribution_line("turns", &summary.turns));
    out.push_str(&distribution_line("ticks", &summary.ticks));
    out.push_str(&distribution_line("steps", &summary.steps));
    if !summary.stats.is_empty() {
        let _ = writeln!(out, "\nfinal values");
        for (name, distribution) in &summary.stats {
            out.push_str(&distribution_line(name, distribution));
        }
    }
    out.push_str(&abilities_text(summary));
    let counted: [(&str, &std::collections::BTreeMap<String, usize>); 5] = [
        ("acts (runs that started each)", &summary.act_runs),
        ("nodes (runs that stood on each)", &summary.node_runs),
        ("options (plays)", &summary.option_plays),
        ("skills (uses)", &summary.skill_uses),
        ("cards (runs that saw each)", &summary.card_runs),
    ];
    for (title, counts) in counted {
        if counts.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}");
        for (name, count) in counts {
            let _ = writeln!(out, "  {name:28} {count:>7}");
        }
    }
    let dead = &summary.dead;
    let _ = writeln!(out, "\ndead content (never reached in {runs} runs)");
    if dead.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for (kind, ids) in [
        ("acts", &dead.acts),
        ("cards", &dead.cards),
        ("options", &dead.options),
        ("skills", &dead.skills),
        ("nodes", &dead.nodes),
        ("eras", &dead.eras),
        ("grades", &dead.grades),
        ("revelations", &dead.revelations),
    ] {
        if !ids.is_empty() {
            let _ = writeln!(out, "  {kind:8} {}", ids.join(", "));
        }
    }
    if let Some(changes) = changes {
        let _ = writeln!(out, "\nchanges since the baseline");
        if changes.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for change in changes {
            let _ = writeln!(
                out,
                "  {:44} {:>9} → {:>9}  ({:+.3})",
                change.what,
                show_short(change.before),
                show_short(change.after),
                change.after - change.before
            );
        }
    }
    out
}

/// Board play's side policies, instant wins and per side and card how often it was played and
/// how often the side won when it was and when it was not (empty without board play).
pub fn abilities_text(summary: &Summary) -> String {
    let mut out = String::new();
    if summary.side_policies.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "
sides"
    );
    for (side, policy) in &summary.side_policies {
        let wins = summary.side_wins.get(side).copied().unwrap_or(0);
        let instant = summary.instant_wins.get(side).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "  {side:28} {policy:8} won {:5.1}%  (instant wins, e.g. Exodia: {instant})",
            percent(wins, summary.runs)
        );
    }
    if summary.abilities.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "
abilities (side/card: played in runs, plays; side's win rate played vs not; instant wins)"
    );
    let rate = |rate: f64| if rate.is_nan() { "    -".to_owned() } else { format!("{:5.1}%", rate * 100.0) };
    for (key, stats) in &summary.abilities {
        let _ = writeln!(
            out,
            "  {key:28} {:5.1}% of runs {:>7} plays  won {} played vs {} not  instant {}/{}",
            percent(stats.runs_played, summary.runs),
            stats.plays,
            rate(stats.win_rate_played()),
            rate(stats.win_rate_not_played()),
            stats.instant_wins_played,
            stats.instant_wins_not_played
        );
    }
    out
}

/// The summary as CSV rows `section,name,value` (a distribution gives one row per measure).
pub fn csv(summary: &Summary, changes: Option<&[Change]>) -> String {
    let mut out = String::from("section,name,value\n");
    let mut row = |section: &str, name: &str, value: String| {
        let quoted =
            if name.contains([',', '"']) { format!("\"{}\"", name.replace('"', "\"\"")) } else { name.to_owned() };
        let _ = writeln!(out, "{section},{quoted},{value}");
    };
    row("run", "runs", summary.runs.to_string());
    row("run", "seed", summary.seed.to_string());
    row("run", "policy", summary.policy.clone());
    for (name, count) in &summary.outcomes {
        row("outcome", name, count.to_string());
    }
    for (name, count) in &summary.grades {
        row("grade", name, count.to_string());
    }
    let measures = |distribution: &Distribution| {
        [
            ("mean", distribution.mean),
            ("min", distribution.min),
            ("p10", distribution.p10),
            ("median", distribution.median),
            ("p90", distribution.p90),
            ("max", distribution.max),
        ]
    };
    let lengths = [("moves", &summary.moves), ("turns", &summary.turns), ("ticks", &summary.ticks)];
    for (name, distribution) in lengths.into_iter().chain(summary.stats.iter().map(|(name, d)| (name.as_str(), d))) {
        for (measure, value) in measures(distribution) {
            row("value", &format!("{name}.{measure}"), show_value(value, None));
        }
    }
    for (section, counts) in [
        ("act_runs", &summary.act_runs),
        ("act_completions", &summary.act_completions),
        ("node_runs", &summary.node_runs),
        ("era_runs", &summary.era_runs),
        ("revelation_runs", &summary.revelation_runs),
        ("option_plays", &summary.option_plays),
        ("skill_uses", &summary.skill_uses),
        ("card_runs", &summary.card_runs),
    ] {
        for (name, count) in counts {
            row(section, name, count.to_string());
        }
    }
    for (side, policy) in &summary.side_policies {
        row("side_policy", side, policy.clone());
    }
    for (side, count) in &summary.side_wins {
        row("side_wins", side, count.to_string());
    }
    for (side, count) in &summary.instant_wins {
        row("instant_wins", side, count.to_string());
    }
    for (key, stats) in &summary.abilities {
        for (measure, value) in [
            ("plays", stats.plays),
            ("runs_played", stats.runs_played),
            ("wins_played", stats.wins_played),
            ("instant_wins_played", stats.instant_wins_played),
            ("runs_not_played", stats.runs_not_played),
            ("wins_not_played", stats.wins_not_played),
            ("instant_wins_not_played", stats.instant_wins_not_played),
        ] {
            row("ability", &format!("{key}.{measure}"), value.to_string());
        }
    }
    let dead = &summary.dead;
    for (kind, ids) in [
        ("dead_act", &dead.acts),
        ("dead_card", &dead.cards),
        ("dead_option", &dead.options),
        ("dead_skill", &dead.skills),
        ("dead_node", &dead.nodes),
        ("dead_era", &dead.eras),
        ("dead_grade", &dead.grades),
        ("dead_revelation", &dead.revelations),
    ] {
        for id in ids {
            row(kind, id, String::new());
        }
    }
    for change in changes.unwrap_or_default() {
        row(
            "change",
            &change.what,
            format!("{} -> {}", show_value(change.before, None), show_value(change.after, None)),
        );
    }
    out
}
