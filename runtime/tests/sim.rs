//! Simulation over real content: the same seed gives the same summary on any number of threads,
//! dead content is found, each policy plays, cancelling stops, and summaries diff.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::path::PathBuf;
use std::sync::Arc;

use actforge_runtime::engine::Content;
use actforge_runtime::model::{Act, Card, Id, Project};
use actforge_runtime::project::load_folder;
use actforge_runtime::sim::{Distribution, Policy, Progress, SimError, SimOptions, Summary, diff, simulate};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn project(pack: &str) -> Project {
    load_folder(&workspace().join("content").join(pack)).unwrap().project
}

fn compiled(project: Project) -> Arc<Content> {
    Arc::new(Content::compile(project).unwrap())
}

fn run(content: &Arc<Content>, runs: usize, seed: u64, threads: usize, policy: Policy) -> Summary {
    let options = SimOptions { runs, seed, policy, max_moves: 400, threads, ..SimOptions::default() };
    simulate(content, &options, &Progress::default()).unwrap()
}

#[test]
fn same_seed_same_summary_on_one_two_and_three_threads() {
    let content = compiled(project("knucklebones"));
    let one = run(&content, 300, 11, 1, Policy::Random);
    assert_eq!(one, run(&content, 300, 11, 2, Policy::Random));
    assert_eq!(one, run(&content, 300, 11, 3, Policy::Random));
    assert_eq!(one.runs, 300);
    assert_eq!(one.outcomes.values().sum::<usize>(), 300);
    assert_ne!(one, run(&content, 300, 12, 2, Policy::Random), "another seed plays other games");
    // Every Knucklebones game ends, once a side has placed nine dice (destroyed dice make it longer).
    assert!(!one.outcomes.contains_key("unfinished"), "{:?}", one.outcomes);
    assert!(one.turns.min >= 9.0, "{:?}", one.turns);
    let scores = &one.stats["board.player_one.score"];
    assert_eq!(scores.count, 300);
    assert_eq!(scores.histogram.iter().map(|bucket| bucket.2).sum::<usize>(), 300);
}

#[test]
fn dead_content_lists_what_no_run_reached() {
    let mut made = project("knucklebones");
    made.acts.insert(Act { id: Id::new("orphan_act"), label: "Nothing leads here".into(), ..Act::default() });
    made.cards.insert(Card { id: Id::new("orphan_card"), label: "Nothing makes me".into(), ..Card::default() });
    let summary = run(&compiled(made), 200, 3, 2, Policy::Random);
    assert_eq!(summary.dead.acts, ["orphan_act"]);
    assert_eq!(summary.dead.cards, ["orphan_card"], "the die and the four ability cards are all seen");
    assert!(summary.dead.options.is_empty(), "random play picks every option of every card: {:?}", summary.dead);
    assert!(summary.card_runs["die"] == 200);
}

#[test]
fn random_table_play_counts_acts_and_leaves_unreached_acts_dead() {
    let content = compiled(project("lighthouse"));
    let summary = run(&content, 40, 5, 2, Policy::Random);
    assert!(!summary.act_completions.is_empty());
    for act in summary.act_runs.keys() {
        assert!(!summary.dead.acts.contains(act), "{act} ran yet is listed dead");
    }
    let acts = content.project.acts.len();
    assert_eq!(summary.act_runs.len() + summary.dead.acts.len(), acts);
}

#[test]
fn greedy_needs_a_score_outside_boards_and_plays_boards_with_the_built_in_one() {
    let table = compiled(project("lighthouse"));
    let options = SimOptions { runs: 4, policy: Policy::Greedy { score: None }, ..SimOptions::default() };
    match simulate(&table, &options, &Progress::default()) {
        Err(SimError::Options(message)) => assert!(message.contains("--score"), "{message}"),
        other => panic!("{other:?}"),
    }
    let options = SimOptions { runs: 4, policy: Policy::Greedy { score: Some("1 +".into()) }, ..SimOptions::default() };
    assert!(matches!(simulate(&table, &options, &Progress::default()), Err(SimError::Score(_))));

    let board = compiled(project("knucklebones"));
    let greedy = run(&board, 60, 2, 2, Policy::Greedy { score: None });
    assert_eq!(greedy.policy, "greedy");
    assert_eq!(greedy.outcomes.values().sum::<usize>(), 60);
    // Both sides playing for their lead score more than random players do.
    let random = run(&board, 60, 2, 2, Policy::Random);
    let mean = |summary: &Summary| summary.stats["board.player_one.score"].mean;
    assert!(mean(&greedy) > mean(&random), "greedy {} vs random {}", mean(&greedy), mean(&random));
}

#[test]
fn a_script_policy_plays_the_script_then_random() {
    let content = compiled(project("knucklebones"));
    let script: Arc<str> = "setup turn player_one\nplace player_one 1\nexpect turn player_two\n".into();
    let summary = run(&content, 50, 1, 2, Policy::Script(script));
    assert_eq!(summary.policy, "script");
    assert_eq!(summary.runs, 50);
    let broken: Arc<str> = "place 9\n".into();
    let options = SimOptions { runs: 3, policy: Policy::Script(broken), ..SimOptions::default() };
    match simulate(&content, &options, &Progress::default()) {
        Err(SimError::Script { line: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn cancelling_stops_the_simulation() {
    let content = compiled(project("knucklebones"));
    let progress = Progress::default();
    progress.cancel();
    let options = SimOptions { runs: 100, ..SimOptions::default() };
    assert!(matches!(simulate(&content, &options, &progress), Err(SimError::Cancelled(0))));
}

#[test]
fn diff_shows_what_moved_and_nothing_else() {
    let content = compiled(project("knucklebones"));
    let before = run(&content, 100, 4, 2, Policy::Random);
    assert!(diff(&before, &before).is_empty());
    let after = run(&content, 100, 5, 2, Policy::Random);
    let changes = diff(&before, &after);
    assert!(changes.iter().any(|change| change.what.starts_with("outcome ")), "{changes:?}");
    assert!(changes.iter().all(|change| change.before != change.after));
}

#[test]
fn distributions_use_nearest_ranks_and_equal_buckets() {
    let values: Vec<f64> = (1..=10).map(f64::from).collect();
    let distribution = Distribution::of(&values);
    assert_eq!((distribution.min, distribution.max, distribution.mean), (1.0, 10.0, 5.5));
    assert_eq!((distribution.p10, distribution.median, distribution.p90), (1.0, 5.0, 9.0));
    assert_eq!(distribution.histogram.len(), 12);
    assert_eq!(distribution.histogram.iter().map(|bucket| bucket.2).sum::<usize>(), 10);
    assert_eq!(distribution.histogram.last().unwrap().1, 10.0);
    let flat = Distribution::of(&[3.0, 3.0, f64::NAN]);
    assert_eq!((flat.count, flat.histogram.len(), flat.histogram[0].2), (2, 1, 2));
    assert_eq!(Distribution::of(&[]), Distribution::default());
}

#[test]
fn campaigns_report_grades_node_visits_and_unvisited_nodes() {
    let content = compiled(project("era-synthesis"));
    let summary = run(&content, 40, 9, 2, Policy::Random);
    assert_eq!(summary.outcomes.values().sum::<usize>(), 40);
    assert!(!summary.grades.is_empty(), "{:?}", summary.outcomes);
    assert!(summary.grades.values().sum::<usize>() <= 40);
    let map = content.project.node_maps.iter().next().unwrap();
    assert_eq!(summary.node_runs.len() + summary.dead.nodes.len(), map.nodes.len());
    let start = summary.node_runs.values().max().copied();
    assert_eq!(start, Some(40), "every run stands on the start node");
    assert!(summary.turns.min >= 1.0, "days are counted: {:?}", summary.turns);
    // Eras and grades: each one is either reached or listed as never reached.
    assert_eq!(summary.era_runs.get("totem"), Some(&40), "every run starts in the totem era");
    assert_eq!(summary.era_runs.len() + summary.dead.eras.len(), content.project.eras.len());
    assert_eq!(summary.grades.len() + summary.dead.grades.len(), map.grades.len());
    for grade in &summary.dead.grades {
        assert!(!summary.grades.contains_key(grade), "{grade}");
    }
}

/// Issue 27.5: an instant act that is its own next act loops without the player; a run is cut
/// by the step budget and reported as `cut`, the same way on every run of the same seed.
#[test]
fn a_run_that_loops_without_the_player_is_cut_by_the_step_budget() {
    let mut project = Project::new("spin");
    project.slots.insert(actforge_runtime::model::Slot { id: Id::new("seat"), ..Default::default() });
    project.cards.insert(Card { id: Id::new("pebble"), label: "Pebble".into(), ..Card::default() });
    project.tokens.insert(actforge_runtime::model::Token {
        id: Id::new("wheel"),
        slot: Some(Id::new("seat")),
        ..Default::default()
    });
    project.manifest.entry.tokens = vec![Id::new("wheel")];
    project.manifest.entry.cards = vec![Id::new("pebble")];
    project.acts.insert(Act {
        id: Id::new("spin"),
        token: Some(Id::new("wheel")),
        initial: true,
        next_acts: vec![actforge_runtime::model::ActLink::to("spin")],
        ..Act::default()
    });
    let content = compiled(project);
    let options =
        SimOptions { runs: 4, seed: 3, max_moves: 2000, max_steps: 20_000, threads: 1, ..SimOptions::default() };
    let summary = simulate(&content, &options, &Progress::default()).unwrap();
    assert_eq!(summary.outcomes.get("cut"), Some(&4), "{:?}", summary.outcomes);
    assert_eq!(summary, simulate(&content, &options, &Progress::default()).unwrap());
}

#[test]
fn per_side_policies_report_each_sides_ability_plays_and_win_rates() {
    let content = compiled(project("knucklebones"));
    let policy = Policy::Sides(vec![Policy::Random, Policy::Greedy { score: None }]);
    let summary = run(&content, 60, 4, 2, policy);
    assert_eq!(summary.policy, "random vs greedy");
    assert_eq!(summary.side_policies["player_one"], "random");
    assert_eq!(summary.side_policies["player_two"], "greedy");
    // Greedy beats random.
    assert!(summary.side_wins["player_two"] > summary.side_wins.get("player_one").copied().unwrap_or(0), "{summary:?}");
    let keys: Vec<&String> = summary.abilities.keys().collect();
    assert_eq!(keys.len(), 8, "four cards per side: {keys:?}");
    for (key, stats) in &summary.abilities {
        assert_eq!(stats.runs_played + stats.runs_not_played, 60, "{key}");
        assert!(stats.plays >= stats.runs_played, "{key}");
        assert!(stats.wins_played <= stats.runs_played && stats.wins_not_played <= stats.runs_not_played);
    }
    let side_wins = |side: &str| {
        let stats = &summary.abilities[&format!("{side}/thief")];
        stats.wins_played + stats.wins_not_played
    };
    assert_eq!(side_wins("player_two"), summary.side_wins["player_two"]);
    // A policy per side needs board play.
    let table = compiled(project("lighthouse"));
    let options = SimOptions { runs: 2, policy: Policy::Sides(vec![Policy::Random]), ..SimOptions::default() };
    assert!(matches!(simulate(&table, &options, &Progress::default()), Err(SimError::Options(_))));
}

#[test]
fn instant_wins_are_counted_apart() {
    let mut made = project("knucklebones");
    // Exodia on the first die: every game is won at once at the end of the first placement.
    let exodia = made.formulas.iter().find(|formula| formula.id.as_str() == "exodia").unwrap().clone();
    made.formulas.insert(actforge_runtime::model::Formula { expr: "board.own.filled >= 1".into(), ..exodia });
    let summary = run(&compiled(made), 40, 6, 2, Policy::Random);
    assert_eq!(summary.instant_wins.values().sum::<usize>(), 40, "{summary:?}");
    assert_eq!(summary.side_wins, summary.instant_wins);
    let normal = run(&content_of("knucklebones"), 40, 6, 2, Policy::Random);
    assert!(normal.instant_wins.values().sum::<usize>() < 40);
    let played = &summary.abilities["player_one/destiny_die"];
    assert_eq!(
        played.instant_wins_played + played.instant_wins_not_played,
        summary.side_wins.get("player_one").copied().unwrap_or(0)
    );
}

fn content_of(pack: &str) -> Arc<Content> {
    compiled(project(pack))
}

#[test]
fn a_move_skill_a_unit_walks_with_is_used_not_dead() {
    // The move event named no skill, so `step` (the skirmish units' move skill) was listed dead.
    let summary = run(&content_of("srpg-skirmish"), 20, 4, 2, Policy::Random);
    assert!(summary.skill_uses.get("step").is_some_and(|uses| *uses > 0), "{:?}", summary.skill_uses);
    assert!(!summary.dead.skills.contains(&"step".to_owned()), "{:?}", summary.dead.skills);
}
