//! Countdowns as the preview shows them (timer bars, decays), and when they next look
//! different: a playing preview draws a frame only when something it shows changes.
//!
//! A countdown shows whole seconds while more than ten are left and tenths in the last ten
//! (as a game clock does), always rounded up, so it never reads 0 while time is left. Each
//! countdown drawn notes the ticks until its text or its bar's fill moves by a pixel; the
//! preview then asks for its next frame at the nearest of those ticks, instead of at every
//! tick (a frame costs the same whatever changed, most of it in the GL rasteriser).

use egui::Id;

/// Seconds left above which a countdown shows whole seconds.
const TENTHS_BELOW_SECONDS: u64 = 10;

/// The countdown text for `remaining` ticks at `per_second` ticks a second ("68 s", "9.4 s")
/// and the ticks until that text changes (at least 1).
pub(crate) fn countdown(remaining: u64, per_second: u32) -> (String, u64) {
    let per_second = u64::from(per_second.max(1));
    if remaining > TENTHS_BELOW_SECONDS.saturating_mul(per_second) {
        let shown = remaining.div_ceil(per_second);
        let changes_in = remaining.saturating_sub(shown.saturating_sub(1).saturating_mul(per_second));
        return (format!("{shown} s"), changes_in.max(1));
    }
    let tenths = remaining.saturating_mul(10).div_ceil(per_second);
    // The text changes when ten times the ticks left drops to (tenths − 1) × per_second.
    let last_tick_shown = tenths.saturating_sub(1).saturating_mul(per_second) / 10;
    let changes_in = remaining.saturating_sub(last_tick_shown);
    (format!("{}.{} s", tenths / 10, tenths % 10), changes_in.max(1))
}

/// The ticks until a bar `width` points wide, `total` ticks long with `remaining` left, fills
/// one more point (none: it is full, or too narrow to show a change).
pub(crate) fn bar_changes_in(remaining: u64, total: u64, width: f32) -> Option<u64> {
    if remaining == 0 || total == 0 || !width.is_finite() || width < 1.0 {
        return None;
    }
    let done = total.saturating_sub(remaining);
    let filled = filled_points(done, total, width);
    // The first tick at which the fill reaches the next point, worked out, then settled
    // against `filled_points` itself (the division may land a hair either side of a tick).
    let estimate = ((filled as f64 + 1.0) * total as f64 / f64::from(width)).ceil();
    let mut at = if estimate.is_finite() && estimate < total as f64 { (estimate as u64).max(done + 1) } else { total };
    while at < total && filled_points(at, total, width) == filled {
        at += 1;
    }
    while at > done + 1 && filled_points(at - 1, total, width) != filled {
        at -= 1;
    }
    Some(at - done)
}

/// Whole points of a bar `width` points wide filled after `done` of `total` ticks.
fn filled_points(done: u64, total: u64, width: f32) -> u64 {
    (done as f64 / total as f64 * f64::from(width)).floor() as u64
}

fn key() -> Id {
    Id::new("preview_next_shown_change")
}

/// Forgets the changes noted in the last frame (called before the preview draws).
pub(crate) fn forget(ctx: &egui::Context) {
    ctx.data_mut(|data| data.remove::<u64>(key()));
}

/// Notes that something drawn this frame changes in `ticks` ticks.
pub(crate) fn note(ctx: &egui::Context, ticks: u64) {
    ctx.data_mut(|data| {
        let nearest = data.get_temp_mut_or(key(), u64::MAX);
        *nearest = (*nearest).min(ticks.max(1));
    });
}

/// The nearest change noted since [`forget`], in ticks.
pub(crate) fn nearest(ctx: &egui::Context) -> Option<u64> {
    ctx.data(|data| data.get_temp::<u64>(key())).filter(|ticks| *ticks != u64::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // a test

    use super::*;

    /// The text at each tick, and the ticks until it changes, agree with counting down tick by tick.
    #[test]
    fn countdown_changes_when_its_text_does() {
        for per_second in [1, 3, 10, 30, 60] {
            for remaining in 1..(30 * u64::from(per_second)) {
                let (text, changes_in) = countdown(remaining, per_second);
                let first_different =
                    (1..=remaining).find(|k| countdown(remaining - k, per_second).0 != text).unwrap_or(remaining);
                assert_eq!(changes_in, first_different, "{remaining} ticks at {per_second}/s shows {text}");
            }
        }
        assert_eq!(countdown(672, 10).0, "68 s");
        assert_eq!(countdown(100, 10).0, "10.0 s");
        assert_eq!(countdown(94, 10).0, "9.4 s");
        assert_eq!(countdown(1, 30).0, "0.1 s");
        assert_eq!(countdown(0, 10).0, "0.0 s");
    }

    #[test]
    fn a_bar_changes_when_its_fill_moves_a_point() {
        let fill = |remaining: u64, total: u64, width: f32| filled_points(total - remaining, total, width);
        for (total, width) in [(600, 200.0), (50, 200.0), (7, 3.5), (1000, 150.0)] {
            for remaining in 1..=total {
                let changes_in = bar_changes_in(remaining, total, width).unwrap();
                let first_moved = (1..=remaining)
                    .find(|k| fill(remaining - k, total, width) != fill(remaining, total, width))
                    .unwrap_or(remaining);
                assert_eq!(changes_in, first_moved, "{remaining}/{total} on {width}");
            }
        }
        assert_eq!(bar_changes_in(0, 10, 100.0), None);
        assert_eq!(bar_changes_in(5, 10, 0.5), None);
    }
}
