//! Text interpolation (`spec/cultistlike.md` §2.10): conditional blocks `{[NAME OP N] body}`
//! and substitutions `[NAME]` (a count) and `[MC]` (the first matched card's label).

/// Interpolates `text`: `count(NAME)` gives the count of an aspect or card id, `matched_label`
/// replaces `[MC]`.
pub fn interpolate(text: &str, matched_label: &str, count: impl Fn(&str) -> i64) -> String {
    let blocks = conditional_blocks(text, &count);
    substitutions(&blocks, matched_label, &count)
}

/// A block's condition `NAME OP N`, if it is one.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "positions found in the text, plus the length of what was found there"
)]
fn condition(inside: &str) -> Option<(&str, &str, Option<i64>)> {
    let inside = inside.trim_end_matches(' ');
    let digits_start = inside.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let digits = inside.get(digits_start..)?;
    if digits.is_empty() {
        return None;
    }
    // Too large for the original's 32-bit int: the condition is false.
    let n = digits.parse::<i32>().ok().map(i64::from);
    let before = inside.get(..digits_start)?.trim_end_matches(' ');
    let op = ["==", "!=", ">=", "<=", ">", "<"].into_iter().find(|op| before.ends_with(op))?;
    let name_part = before.get(..before.len() - op.len())?;
    // At least one whitespace between the name and the operator.
    if !name_part.ends_with(char::is_whitespace) {
        return None;
    }
    let name = name_part.trim_end();
    (!name.is_empty()).then_some((name, op, n))
}

fn holds(left: i64, op: &str, right: Option<i64>) -> bool {
    let Some(right) = right else { return false };
    match op {
        "==" => left == right,
        "!=" => left != right,
        ">=" => left >= right,
        "<=" => left <= right,
        ">" => left > right,
        _ => left < right,
    }
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "positions found in the text, plus the length of what was found there"
)]
fn conditional_blocks(text: &str, count: &impl Fn(&str) -> i64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{[") {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let after_open = from.get(2..).unwrap_or_default();
        let line_end = after_open.find('\n').unwrap_or(after_open.len());
        let parsed = after_open.get(..line_end).and_then(|line| line.find(']')).and_then(|close| {
            let (name, op, n) = condition(after_open.get(..close)?)?;
            let mut body_start = close + 1;
            if after_open.get(body_start..)?.starts_with([' ', '\t']) {
                body_start += 1;
            }
            let body_len = after_open.get(body_start..)?.find('}')?;
            let body = after_open.get(body_start..body_start + body_len)?;
            let mut end = body_start + body_len + 1;
            if after_open.get(end..)?.starts_with('\n') {
                end += 1;
            }
            Some((holds(count(name), op, n), body, end))
        });
        if let Some((shown, body, end)) = parsed {
            if shown {
                out.push_str(body);
            }
            rest = after_open.get(end..).unwrap_or_default();
        } else {
            out.push_str("{[");
            rest = after_open;
        }
    }
    out.push_str(rest);
    out
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "positions found in the text, plus the length of what was found there"
)]
fn substitutions(text: &str, matched_label: &str, count: &impl Fn(&str) -> i64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('[') {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let after_open = from.get(1..).unwrap_or_default();
        match after_open.find(']') {
            // The shortest match: the key ends at the first `]` and holds no `[`.
            Some(close) if !after_open.get(..close).unwrap_or_default().contains('[') => {
                let key = after_open.get(..close).unwrap_or_default();
                if key == "MC" {
                    out.push_str(matched_label);
                } else {
                    out.push_str(&count(key).to_string());
                }
                rest = after_open.get(close + 1..).unwrap_or_default();
            }
            _ => {
                out.push('[');
                rest = after_open;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(name: &str) -> i64 {
        match name {
            "furry" => 5,
            "dark calories" => 2,
            _ => 0,
        }
    }

    #[test]
    fn substitutes_counts_and_the_matched_card() {
        assert_eq!(interpolate("[furry] paws, [MC], [nothing]", "Kitten", counts), "5 paws, Kitten, 0");
        assert_eq!(interpolate("a [b [furry] c", "", counts), "a [b 5 c");
    }

    #[test]
    fn conditional_blocks_show_when_they_hold_and_swallow_one_newline() {
        let text = "{[furry >= 3] Soft.}\n{[furry < 3] Bald.}\nEnd";
        assert_eq!(interpolate(text, "", counts), "Soft.End");
        assert_eq!(interpolate("{[dark calories == 2]yes}", "", counts), "yes");
        // No whitespace before the operator: not a block, the brackets stay (and `[...]` counts).
        assert_eq!(interpolate("{[furry>=3] x}", "", counts), "{0 x}");
        // Too large for a 32-bit int: false.
        assert_eq!(interpolate("{[furry < 99999999999] big}", "", counts), "");
    }
}
