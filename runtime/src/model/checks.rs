//! Value checks: each kind says what is wrong with an item's values, at which field. The
//! checks of each kind are in `validate.rs`; validation collects them as diagnostics.

use std::path::Path;

use crate::diagnostic::Severity;
use crate::formula::lexer::is_keyword;

use super::{Expr, FieldPath, Item, Items, Kind, Project};

/// The value of a formula that needs nothing from play (`3`, `0/0`, `2^2000`); none when it
/// reads the state or does not parse (the formula checks report those).
fn constant(expr: &Expr) -> Option<f64> {
    if let Some(value) = expr.as_int() {
        return Some(value as f64);
    }
    let ast = crate::formula::parse(expr.text()).ok()?;
    let compiled = crate::formula::FormulaSet::new().compile_ast(&ast, &crate::formula::AnyNames).ok()?;
    compiled.constant()
}

/// The lookups a formula reads (none when it does not parse; the formula checks report that).
pub fn lookups(expr: &Expr) -> Vec<crate::formula::Lookup> {
    if expr.as_int().is_some() {
        return Vec::new();
    }
    let Ok(ast) = crate::formula::parse(expr.text()) else { return Vec::new() };
    let mut set = crate::formula::FormulaSet::new();
    if set.compile_ast(&ast, &crate::formula::AnyNames).is_err() {
        return Vec::new();
    }
    set.lookups().cloned().collect()
}

/// Most cards one step of play creates (levels of Adjust, Transform, sub-cards…); beyond,
/// creation stops with a warning, so a level of ten million costs what ten thousand do.
pub const MAX_CARDS_CREATED_PER_STEP: usize = 10_000;

/// Value checks of one item: what is wrong, at which field.
pub trait ValueChecks {
    /// Reports bad values of this item into `checks`.
    fn check_values(&self, checks: &mut Checks<'_>);
}

/// Another item's content that a check read: incremental validation checks the item again
/// when what it read changes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Read {
    /// The item of this kind and id (present or not).
    Item(Kind, String),
    /// Every item of this kind.
    Kind(Kind),
}

/// Collects the findings about one item.
pub struct Checks<'a> {
    /// The project the item belongs to; read through [`Checks::item`] and [`Checks::items`],
    /// which note what was read.
    project: &'a Project,
    /// The project folder, when known.
    pub root: Option<&'a Path>,
    found: Vec<(Severity, FieldPath, String)>,
    reads: Vec<Read>,
}

impl<'a> Checks<'a> {
    /// Findings about one item of `project` (`root`: the project folder, when known).
    pub fn new(project: &'a Project, root: Option<&'a Path>) -> Self {
        Self { project, root, found: Vec::new(), reads: Vec::new() }
    }

    /// The item `id` of kind `T`, noted as read.
    pub fn item<T: Item>(&mut self, id: &str) -> Option<&'a T> {
        self.reads.push(Read::Item(T::KIND, id.to_owned()));
        T::items(self.project).get(id)
    }

    /// Every item of kind `T`, noted as read.
    pub fn items<T: Item>(&mut self) -> &'a Items<T> {
        self.reads.push(Read::Kind(T::KIND));
        T::items(self.project)
    }

    /// The other items' content read so far.
    pub fn reads(&self) -> &[Read] {
        &self.reads
    }

    /// What was found: severity, field and message, in the order reported.
    pub fn into_found(self) -> Vec<(Severity, FieldPath, String)> {
        self.found
    }

    /// Reports an error at `path`.
    pub fn error(&mut self, path: FieldPath, message: impl Into<String>) {
        self.found.push((Severity::Error, path, message.into()));
    }

    /// Reports a warning at `path`.
    pub fn warning(&mut self, path: FieldPath, message: impl Into<String>) {
        self.found.push((Severity::Warning, path, message.into()));
    }

    /// Warns when a constant count is past what one step of play creates.
    pub fn creatable(&mut self, path: FieldPath, expr: &Expr) {
        let most = MAX_CARDS_CREATED_PER_STEP;
        if let Some(value) = constant(expr).filter(|value| *value > most as f64) {
            self.warning(
                path,
                format!("{value} cards are more than one step of play creates ({most}); only the first {most} appear"),
            );
        }
    }

    /// Reports a value that is not a whole number where no formula can be read: `why` says
    /// where the value is used without a game state to read.
    pub fn whole_number(&mut self, path: FieldPath, expr: &Expr, why: &str) {
        if expr.as_int().is_none() {
            self.error(path, format!("`{}` must be a whole number here: {why}", expr.text()));
        }
    }

    /// Reports a constant that is negative: `what` cannot be.
    pub fn not_negative(&mut self, path: FieldPath, expr: &Expr, what: &str) {
        match constant(expr) {
            Some(value) if !value.is_finite() => self.not_finite(path, expr, what, value),
            Some(value) if value < 0.0 => self.error(path, format!("{what} cannot be negative (it is {value})")),
            _ => {}
        }
    }

    /// A value that must lie in `low..=high` when it is a constant.
    pub fn in_range(&mut self, path: FieldPath, expr: &Expr, low: i64, high: i64, what: &str) {
        match constant(expr) {
            Some(value) if !value.is_finite() => self.not_finite(path, expr, what, value),
            Some(value) if !(low as f64..=high as f64).contains(&value) => {
                self.error(path, format!("{what} must be between {low} and {high} (it is {value})"));
            }
            _ => {}
        }
    }

    /// A value that must be a finite number when it is a constant (`0/0` is NaN).
    pub fn finite(&mut self, path: FieldPath, expr: &Expr, what: &str) {
        if let Some(value) = constant(expr).filter(|value| !value.is_finite()) {
            self.not_finite(path, expr, what, value);
        }
    }

    fn not_finite(&mut self, path: FieldPath, expr: &Expr, what: &str, value: f64) {
        let shown = crate::number::show_value(value, None);
        self.error(path, format!("{what} must be a finite number, but `{}` is {shown}", expr.text()));
    }

    /// An art or image path that should exist inside the project folder.
    pub fn asset(&mut self, path: FieldPath, asset: Option<&String>) {
        let Some(asset) = asset else { return };
        if asset.trim().is_empty() {
            self.error(path, "the picture path is empty; remove it or name a file");
            return;
        }
        if Path::new(asset).is_absolute() || asset.split(['/', '\\']).any(|part| part == "..") {
            self.error(path, format!("`{asset}` must be a path inside the project folder, e.g. art/kitten.png"));
            return;
        }
        if let Some(root) = self.root
            && !root.join(asset).is_file()
        {
            self.warning(path, format!("the picture `{asset}` does not exist in the project folder"));
        }
    }

    /// A name that formulas read (stats, properties, parameters).
    pub fn name(&mut self, path: FieldPath, name: &str, what: &str) {
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            self.error(
                path,
                format!("the {what} name `{name}` cannot be read by formulas; use letters, digits and `_`"),
            );
        } else if is_keyword(name) {
            self.error(path, format!("`{name}` is a formula keyword, so formulas cannot read this {what}; rename it"));
        }
    }
}
