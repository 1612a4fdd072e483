//! Synthesis (`spec/era-synthesis.md` §4): inputs A and B make one candidate card C chosen by
//! shared tags. The tag vector of a card is its aspects (those the synthesis counts as tags);
//! V = A + B; the candidates are the cards of the synthesis's deck that share a tag with V,
//! scored by the dot product V · C; one is chosen by softmax with a temperature; then its
//! success chance (a formula) is rolled. [`probability_table`] works out every candidate's
//! share and chance for a pair of inputs, as the editor and `actforge synthesis` show it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::formula::query::{Query, QueryError, evaluate};
use crate::model::{AspectId, Card, CardId, Expr, FragmentRef, Project, Synthesis};

/// One candidate of a synthesis and its odds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// The card that would result.
    pub card: CardId,
    /// Its tag score V · C.
    pub score: f64,
    /// Its softmax share: the chance it is the one chosen (0..1).
    pub share: f64,
    /// The chance the synthesis succeeds when it is chosen, in percent (0..100).
    pub success: f64,
}

impl Candidate {
    /// The chance of making this card: chosen and successful (0..1).
    pub fn overall(&self) -> f64 {
        self.share * self.success / 100.0
    }
}

/// Every candidate of a synthesis for one pair of inputs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbabilityTable {
    /// The softmax temperature used.
    pub temperature: f64,
    /// Whether some candidate shares a tag with the inputs; when none does, every card of the
    /// deck is equally likely (spec §4.3).
    pub shared_tags: bool,
    /// How many tags A and B share (`synth.shared`).
    pub shared: f64,
    /// The candidates in deck order.
    pub candidates: Vec<Candidate>,
}

impl ProbabilityTable {
    /// The chance the synthesis fails whatever is chosen (0..1).
    pub fn failure(&self) -> f64 {
        (1.0 - self.candidates.iter().map(Candidate::overall).sum::<f64>()).max(0.0)
    }
}

/// Why a table cannot be worked out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SynthesisError {
    /// No synthesis has that id.
    #[error("there is no synthesis `{0}`")]
    UnknownSynthesis(String),
    /// An input is not a card.
    #[error("there is no card `{0}`")]
    UnknownCard(String),
    /// The synthesis names no deck, or its deck has no cards.
    #[error("synthesis `{0}` has no candidates: give it a deck of cards (`candidates`)")]
    NoCandidates(String),
    /// A formula of the synthesis did not compile.
    #[error("{field} of synthesis `{synthesis}`: {message}")]
    Formula {
        /// The synthesis.
        synthesis: String,
        /// `temperature` or `success_chance`.
        field: &'static str,
        /// Why.
        message: String,
    },
    /// A formula gave a value that cannot be used.
    #[error("{field} of synthesis `{synthesis}` is {value}{context}; {needed}")]
    BadValue {
        /// The synthesis.
        synthesis: String,
        /// `temperature` or `success_chance`.
        field: &'static str,
        /// The value.
        value: f64,
        /// For which candidate, if any.
        context: String,
        /// What is needed.
        needed: &'static str,
    },
}

/// The tag vector of a card: its aspects that `synthesis` counts as tags, with their counts.
fn tags(card: &Card, synthesis: &Synthesis) -> BTreeMap<AspectId, f64> {
    let mut vector = BTreeMap::new();
    for entry in &card.fragments {
        if let FragmentRef::Aspect(aspect) = &entry.fragment
            && (synthesis.tags.is_empty() || synthesis.tags.contains(aspect))
        {
            *vector.entry(aspect.clone()).or_insert(0.0) += entry.count.as_int().unwrap_or(1) as f64;
        }
    }
    vector
}

/// Property changes a caller adds to a card's own numbers, by role (`a`, `b`, `result`): the
/// campaign's per-card state and what a bound B gathered on the field.
pub type Adjust<'f> = &'f dyn Fn(&str, &Card) -> BTreeMap<String, f64>;

/// The numeric properties of `card` as `synth.ROLE.PROPERTY` values (`a`, `b`, `result`), with
/// `adjust`'s changes added.
fn properties(card: &Card, role: &str, values: &mut BTreeMap<String, f64>, adjust: Adjust<'_>) {
    for (name, value) in &card.properties {
        if let Ok(number) = value.text().trim().parse::<f64>() {
            values.insert(format!("synth.{role}.{name}"), number);
        }
    }
    for (name, more) in adjust(role, card) {
        *values.entry(format!("synth.{role}.{name}")).or_insert(0.0) += more;
    }
}

/// What some formulas read, through the named formulas and computed stats they read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Named formulas (ids), in id order.
    pub formulas: Vec<String>,
    /// Stats (ids), in id order.
    pub stats: Vec<crate::model::Id<crate::model::Stat>>,
}

/// What the formula `texts` read, following named formulas and computed stats (each once).
pub fn reads(project: &Project, texts: impl IntoIterator<Item = String>) -> Reads {
    let mut texts: Vec<String> = texts.into_iter().collect();
    let mut formulas = std::collections::BTreeSet::new();
    let mut stats = std::collections::BTreeSet::new();
    while let Some(text) = texts.pop() {
        let Ok(ast) = crate::formula::parse(&text) else { continue };
        ast.each_lookup(&mut |lookup| match lookup.scope {
            crate::formula::Scope::Formula => {
                if let Some(formula) = project.formulas.get(lookup.name.as_str())
                    && formulas.insert(lookup.name.clone())
                {
                    texts.push(formula.expr.text().to_owned());
                }
            }
            crate::formula::Scope::Auto => {
                let id = lookup.name.strip_prefix("stat.").unwrap_or(&lookup.name);
                if let Some(stat) = project.stats.get(id)
                    && stats.insert(stat.id.clone())
                    && !stat.value.is_stored()
                {
                    texts.push(stat.value.expr().text().to_owned());
                }
            }
            _ => {}
        });
    }
    Reads { formulas: formulas.into_iter().collect(), stats: stats.into_iter().collect() }
}

/// What the formulas of `synthesis` read (its temperature and success chance): the named
/// formulas and the stats a what-if table varies.
pub fn synthesis_reads(project: &Project, synthesis: &str) -> Reads {
    let Some(synth) = project.syntheses.get(synthesis) else { return Reads::default() };
    reads(project, [synth.temperature.text().to_owned(), synth.success_chance.text().to_owned()])
}

/// Works out the table of `synthesis` for inputs `a` and `b`. `values` gives other names the
/// formulas read (stats, meters, `faith`…), as `actforge eval --set` does.
pub fn probability_table(
    project: &Project,
    synthesis: &str,
    a: &str,
    b: &str,
    values: &BTreeMap<String, f64>,
) -> Result<ProbabilityTable, SynthesisError> {
    adjusted_table(project, synthesis, a, b, values, &|_, _| BTreeMap::new())
}

/// [`probability_table`] with `adjust`'s changes to the cards' properties.
pub fn adjusted_table(
    project: &Project,
    synthesis: &str,
    a: &str,
    b: &str,
    values: &BTreeMap<String, f64>,
    adjust: Adjust<'_>,
) -> Result<ProbabilityTable, SynthesisError> {
    let synth =
        project.syntheses.get(synthesis).ok_or_else(|| SynthesisError::UnknownSynthesis(synthesis.to_owned()))?;
    let card = |id: &str| project.cards.get(id).ok_or_else(|| SynthesisError::UnknownCard(id.to_owned()));
    let (card_a, card_b) = (card(a)?, card(b)?);
    let mut deck: Vec<&Card> = Vec::new();
    for id in
        synth.candidates.as_ref().and_then(|deck| project.decks.get(deck.as_str())).map_or(&[][..], |d| &d.fragments)
    {
        if let Some(card) = project.cards.get(id.as_str())
            && !deck.iter().any(|seen| seen.id == card.id)
        {
            deck.push(card);
        }
    }
    if deck.is_empty() {
        return Err(SynthesisError::NoCandidates(synthesis.to_owned()));
    }
    let mut inputs = tags(card_a, synth);
    let tags_b = tags(card_b, synth);
    let shared = tags_b.keys().filter(|tag| inputs.contains_key(*tag)).count() as f64;
    for (tag, weight) in tags_b {
        *inputs.entry(tag).or_insert(0.0) += weight;
    }
    let scored: Vec<(&Card, f64, bool)> = deck
        .iter()
        .map(|card| {
            let candidate = tags(card, synth);
            let shares = candidate.iter().any(|(tag, w)| *w != 0.0 && inputs.get(tag).is_some_and(|v| *v != 0.0));
            let score = candidate.iter().map(|(tag, w)| w * inputs.get(tag).copied().unwrap_or(0.0)).sum();
            (*card, score, shares)
        })
        .collect();
    let shared_tags = scored.iter().any(|(_, _, shares)| *shares);

    let mut base = values.clone();
    base.entry("synth.solo".to_owned()).or_insert(0.0);
    base.insert("synth.shared".to_owned(), shared);
    base.entry("synth.success".to_owned()).or_insert(0.0);
    properties(card_a, "a", &mut base, adjust);
    properties(card_b, "b", &mut base, adjust);
    let eval = |field: &'static str, expr: &Expr, values: BTreeMap<String, f64>| {
        let query = Query { project: Some(project), values, ..Query::default() };
        evaluate(expr.text(), &query).map_err(|error| SynthesisError::Formula {
            synthesis: synthesis.to_owned(),
            field,
            message: match error {
                QueryError::Formula { error } | QueryError::BadName { error, .. } => error.render(expr.text()),
                QueryError::Named { name, text, error } => format!("formula `{name}`: {}", error.render(&text)),
            },
        })
    };
    let temperature = eval("temperature", &synth.temperature, base.clone())?;
    if !(temperature.is_finite() && temperature > 0.0) {
        return Err(SynthesisError::BadValue {
            synthesis: synthesis.to_owned(),
            field: "temperature",
            value: temperature,
            context: String::new(),
            needed: "the softmax needs a positive temperature",
        });
    }
    let chosen: Vec<&(&Card, f64, bool)> = scored.iter().filter(|(_, _, shares)| *shares || !shared_tags).collect();
    // Softmax shifted by the best score, so large scores do not overflow.
    let best = chosen.iter().map(|(_, score, _)| *score).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = chosen
        .iter()
        .map(|(_, score, _)| if shared_tags { ((score - best) / temperature).exp() } else { 1.0 })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut candidates = Vec::with_capacity(chosen.len());
    for ((card, score, _), weight) in chosen.into_iter().zip(weights) {
        let share = weight / total;
        let mut values = base.clone();
        properties(card, "result", &mut values, adjust);
        values.insert("synth.score".to_owned(), *score);
        values.insert("synth.share".to_owned(), share);
        let success = eval("success_chance", &synth.success_chance, values)?;
        if success.is_nan() {
            return Err(SynthesisError::BadValue {
                synthesis: synthesis.to_owned(),
                field: "success_chance",
                value: success,
                context: format!(" for `{}`", card.id),
                needed: "it must be a number (give the names it reads a value)",
            });
        }
        candidates.push(Candidate { card: card.id.clone(), score: *score, share, success: success.clamp(0.0, 100.0) });
    }
    Ok(ProbabilityTable { temperature, shared_tags, shared, candidates })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::float_cmp)] // test code

    use super::*;
    use crate::model::{Deck, FragmentCount, Id};

    fn card(id: &str, tags: &[(&str, i64)], properties: &[(&str, &str)]) -> Card {
        Card {
            id: Id::new(id),
            fragments: tags
                .iter()
                .map(|(tag, n)| FragmentCount { fragment: FragmentRef::Aspect(Id::new(*tag)), count: Expr::int(*n) })
                .collect(),
            properties: properties.iter().map(|(k, v)| ((*k).to_owned(), Expr::new(*v))).collect(),
            ..Card::default()
        }
    }

    fn project(temperature: &str, success: &str) -> Project {
        let mut project = Project::default();
        for card in [
            card("ember", &[("fire", 2), ("spirit", 1)], &[("flow", "3")]),
            card("mist", &[("water", 1), ("spirit", 1)], &[("flow", "5")]),
            card("phoenix", &[("fire", 1), ("spirit", 1)], &[("target_flow", "4")]),
            card("golem", &[("earth", 2)], &[("target_flow", "9")]),
            card("steam", &[("fire", 1), ("water", 1)], &[("target_flow", "8")]),
        ] {
            project.cards.insert(card);
        }
        project.decks.insert(Deck {
            id: Id::new("era_one"),
            fragments: vec![Id::new("phoenix"), Id::new("golem"), Id::new("steam")],
            ..Deck::default()
        });
        project.syntheses.insert(Synthesis {
            id: Id::new("forge"),
            candidates: Some(Id::new("era_one")),
            temperature: Expr::new(temperature),
            success_chance: Expr::new(success),
            ..Synthesis::default()
        });
        project
    }

    #[test]
    fn scores_are_dot_products_and_shares_a_softmax() {
        let project = project("2", "100 - abs(synth.b.flow - synth.result.target_flow) * 10");
        let table = probability_table(&project, "forge", "ember", "mist", &BTreeMap::new()).unwrap();
        // V = fire 2, spirit 2, water 1. phoenix: 2 + 2 = 4; steam: 2 + 1 = 3; golem shares nothing.
        let cards: Vec<&str> = table.candidates.iter().map(|c| c.card.as_str()).collect();
        assert_eq!(cards, ["phoenix", "steam"]);
        assert!(table.shared_tags);
        assert_eq!(table.candidates[0].score, 4.0);
        assert_eq!(table.candidates[1].score, 3.0);
        let expected = 1.0 / (1.0 + (-0.5_f64).exp());
        assert!((table.candidates[0].share - expected).abs() < 1e-12);
        assert!((table.candidates.iter().map(|c| c.share).sum::<f64>() - 1.0).abs() < 1e-12);
        // Success: 100 − |5 − 4|·10 = 90 for phoenix; 100 − |5 − 8|·10 = 70 for steam.
        assert_eq!(table.candidates[0].success, 90.0);
        assert_eq!(table.candidates[1].success, 70.0);
        let failure = 1.0 - (expected * 0.9 + (1.0 - expected) * 0.7);
        assert!((table.failure() - failure).abs() < 1e-12);
    }

    #[test]
    fn a_lower_temperature_favours_the_best_score_and_values_feed_the_formulas() {
        let project = project("temperature", "faith");
        let values = |t: f64| BTreeMap::from([("temperature".to_owned(), t), ("faith".to_owned(), 250.0)]);
        let hot = probability_table(&project, "forge", "ember", "mist", &values(10.0)).unwrap();
        let cold = probability_table(&project, "forge", "ember", "mist", &values(0.1)).unwrap();
        assert!(cold.candidates[0].share > 0.99 && hot.candidates[0].share < 0.6);
        assert_eq!(cold.candidates[0].success, 100.0, "clamped to 0..100");
    }

    #[test]
    fn without_a_shared_tag_every_card_of_the_deck_is_equally_likely() {
        let mut project = project("1", "50");
        project.cards.insert(card("stone", &[("rock", 1)], &[]));
        let table = probability_table(&project, "forge", "stone", "stone", &BTreeMap::new()).unwrap();
        assert!(!table.shared_tags);
        assert_eq!(table.candidates.len(), 3);
        assert!(table.candidates.iter().all(|c| (c.share - 1.0 / 3.0).abs() < 1e-12 && c.score == 0.0));
    }

    #[test]
    fn bad_input_is_an_error_that_says_what() {
        let project = project("0", "100");
        let error = |a: &str, synthesis: &str| {
            probability_table(&project, synthesis, a, "mist", &BTreeMap::new()).unwrap_err().to_string()
        };
        assert_eq!(error("ember", "nope"), "there is no synthesis `nope`");
        assert_eq!(error("dragon", "forge"), "there is no card `dragon`");
        assert!(error("ember", "forge").contains("positive temperature"), "{}", error("ember", "forge"));
        let project = super::tests::project("1", "1 +");
        let message = probability_table(&project, "forge", "ember", "mist", &BTreeMap::new()).unwrap_err().to_string();
        assert!(message.starts_with("success_chance of synthesis `forge`"), "{message}");
        let project = super::tests::project("1", "unknown_meter");
        let message = probability_table(&project, "forge", "ember", "mist", &BTreeMap::new()).unwrap_err().to_string();
        assert!(message.contains("unknown_meter"), "{message}");
    }
}
