//! The canonical form of a formula: one space around binary operators, `: ` and `; ` in
//! branches, and only the parentheses the tree needs. Parsing the canonical form gives the
//! same tree back.

use std::fmt::Write;

use super::ast::{Ast, AstKind, Case, EffectSearch, EquipSearch, Holder, Lookup, Merge, Scope};

/// The canonical text of a tree.
pub fn canonical(ast: &Ast) -> String {
    let mut out = String::new();
    write_ast(&mut out, ast);
    out
}

/// How tightly a node holds together when it is an operand (atoms hold tightest).
fn precedence(kind: &AstKind) -> u8 {
    match kind {
        AstKind::Neg(_) => 200,
        AstKind::Binary(op, ..) => op.binding_power(),
        AstKind::Not(_) => 4,
        AstKind::If(..) => 1,
        _ => u8::MAX,
    }
}

/// Writes `ast`, in parentheses if it holds together less tightly than `min`.
fn write_operand(out: &mut String, ast: &Ast, min: u8) {
    if precedence(&ast.kind) < min {
        out.push('(');
        write_ast(out, ast);
        out.push(')');
    } else {
        write_ast(out, ast);
    }
}

fn write_number(out: &mut String, value: f64) {
    let _ = write!(out, "{value}");
}

fn write_cases(out: &mut String, cases: &[Case], default: Option<&Ast>) {
    out.push_str(" { ");
    let mut first = true;
    for (key, value) in cases {
        if !first {
            out.push_str("; ");
        }
        first = false;
        write_ast(out, key);
        out.push_str(": ");
        write_ast(out, value);
    }
    if let Some(default) = default {
        if !first {
            out.push_str("; ");
        }
        out.push_str("default: ");
        write_ast(out, default);
    }
    out.push_str(" }");
}

fn write_ast(out: &mut String, ast: &Ast) {
    match &ast.kind {
        AstKind::Number(value) => write_number(out, *value),
        AstKind::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        AstKind::Neg(operand) => {
            out.push('-');
            write_operand(out, operand, 200);
        }
        AstKind::Not(operand) => {
            out.push_str("not ");
            write_operand(out, operand, 4);
        }
        AstKind::Binary(op, operands) => {
            let [left, right] = &**operands;
            let power = op.binding_power();
            let (left_min, right_min) = if op.is_right_associative() { (power + 1, power) } else { (power, power + 1) };
            write_operand(out, left, left_min);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            write_operand(out, right, right_min);
        }
        AstKind::If(parts) => {
            let [condition, then, otherwise] = &**parts;
            out.push_str("if ");
            write_operand(out, condition, 2);
            out.push_str(": ");
            write_ast(out, then);
            out.push_str("; ");
            write_ast(out, otherwise);
        }
        AstKind::Call(function, args) => {
            out.push_str(function.text());
            out.push('(');
            for (n, arg) in args.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                // Arguments bind at 5: comparisons, `not`, `and`/`or` and `if` need parentheses.
                write_operand(out, arg, 6);
            }
            out.push(')');
        }
        AstKind::Exists(lookup) => {
            out.push_str("exists(");
            write_lookup(out, lookup);
            out.push(')');
        }
        AstKind::LookupOr(lookup, default) => {
            out.push_str("lookup(");
            write_lookup(out, lookup);
            out.push_str(", ");
            write_operand(out, default, 6);
            out.push(')');
        }
        AstKind::Lookup(lookup) => write_lookup(out, lookup),
        AstKind::Cond(cases, default) => {
            out.push_str("cond");
            write_cases(out, cases, default.as_deref());
        }
        AstKind::RandomBranch(cases, default) => {
            out.push_str("random");
            write_cases(out, cases, default.as_deref());
        }
        AstKind::Switch(subject, cases, default) => {
            out.push_str("switch (");
            write_ast(out, subject);
            out.push(')');
            write_cases(out, cases, default.as_deref());
        }
        AstKind::Facing { targeted, cases } => {
            out.push_str(if *targeted { "targeted-side { " } else { "targeter-side { " });
            for (n, (side, value)) in cases.iter().enumerate() {
                if n > 0 {
                    out.push_str("; ");
                }
                out.push_str(side.text());
                out.push_str(": ");
                write_ast(out, value);
            }
            out.push_str(" }");
        }
    }
}

fn write_merge(out: &mut String, merge: Merge) {
    if merge == Merge::First {
        return;
    }
    out.push_str(" get ");
    match merge {
        Merge::First => out.push_str("first"),
        Merge::Last => out.push_str("last"),
        Merge::Min => out.push_str("min"),
        Merge::Max => out.push_str("max"),
        Merge::Mean => out.push_str("mean"),
        Merge::Sum => out.push_str("sum"),
        Merge::Nth(n) => {
            let _ = write!(out, "{n}");
        }
    }
}

/// The search's parenthesised filters, trimmed of the leading space of an empty list.
fn write_equip(out: &mut String, search: &EquipSearch) {
    out.push_str(match search.holder.unwrap_or(Holder::Actor) {
        Holder::Actor => "equip",
        Holder::Target => "t.equip",
        Holder::ActorMount => "mount.equip",
        Holder::TargetMount => "t.mount.equip",
    });
    if search.categories.is_empty() && search.slots.is_empty() && search.merge == Merge::First {
        return;
    }
    let mut inner = search.categories.join(", ");
    if !search.slots.is_empty() {
        inner.push_str(" in ");
        inner.push_str(&search.slots.join(", "));
    }
    write_merge(&mut inner, search.merge);
    let _ = write!(out, "({})", inner.trim_start());
}

fn write_effect(out: &mut String, search: &EffectSearch) {
    out.push_str(if search.reacted { "reacted-skill.effect" } else { "effect" });
    let mut inner = search.changes.iter().map(|change| change.text()).collect::<Vec<_>>().join(", ");
    if !search.stats.is_empty() {
        inner.push_str(" in ");
        inner.push_str(&search.stats.join(", "));
    }
    if !search.categories.is_empty() {
        inner.push_str(" by ");
        inner.push_str(&search.categories.join(", "));
    }
    write_merge(&mut inner, search.merge);
    let _ = write!(out, "({})", inner.trim_start());
}

/// The canonical text of a lookup (also the key `--set` binds values to).
pub fn lookup_text(lookup: &Lookup) -> String {
    let mut out = String::new();
    write_lookup(&mut out, lookup);
    out
}

fn write_lookup(out: &mut String, lookup: &Lookup) {
    let prefix = match &lookup.scope {
        Scope::Auto => "",
        Scope::Formula => "f.",
        Scope::Actor => "c.",
        Scope::Target => "t.",
        Scope::TargetIsNull => {
            out.push_str("t.isNull");
            return;
        }
        Scope::TargetIsNotNull => {
            out.push_str("t.isNotNull");
            return;
        }
        Scope::Skill => "skill.",
        Scope::ActorMount => "mount.",
        Scope::ActorMounter => "mounter.",
        Scope::TargetMount => "t.mount.",
        Scope::TargetMounter => "t.mounter.",
        Scope::ActorStatus => "status.",
        Scope::TargetStatus => "t.status.",
        Scope::Item => "item.",
        Scope::ReactedSkill => "reacted-skill.",
        Scope::ReactedItem => "reacted-skill.item.",
        Scope::EffectValue => {
            out.push_str("effect");
            return;
        }
        Scope::ReactedEffectValue => {
            out.push_str("reacted-skill.effect");
            return;
        }
        Scope::Equip(search) => {
            write_equip(out, search);
            if !lookup.name.is_empty() {
                out.push('.');
                out.push_str(&lookup.name);
            }
            return;
        }
        Scope::Effect(search) => {
            write_effect(out, search);
            return;
        }
    };
    out.push_str(prefix);
    out.push_str(&lookup.name);
}
