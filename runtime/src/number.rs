//! How numbers are shown to people: the one formatter of stats, meters, query results and
//! `eval` (`NaN`, `inf`, `-inf`, fixed decimals when rounded, else the shortest exact form).

/// The value `value` rounded to `decimals` (half away from zero), or unchanged without rounding.
pub fn round_to(value: f64, decimals: Option<u8>) -> f64 {
    match decimals {
        None => value,
        Some(decimals) => {
            let scale = 10f64.powi(i32::from(decimals));
            let rounded = (value * scale).round() / scale;
            if rounded.is_finite() { rounded } else { value }
        }
    }
}

/// A value as a person reads it: `NaN`, `inf`, `-inf`; fixed decimals when rounded, else the
/// shortest exact decimal.
pub fn show_value(value: f64, decimals: Option<u8>) -> String {
    match decimals {
        _ if value.is_nan() => "NaN".to_owned(),
        _ if value.is_infinite() => if value > 0.0 { "inf" } else { "-inf" }.to_owned(),
        Some(decimals) => format!("{:.*}", usize::from(decimals), round_to(value, Some(decimals))),
        None => format!("{value}"),
    }
}

/// A value in a summary table: whole numbers exactly, others with two decimals.
pub fn show_short(value: f64) -> String {
    show_value(value, if value.fract() == 0.0 { None } else { Some(2) })
}

/// A number a person typed (a script's set-up line): finite, or an error saying why (`abc`,
/// `NaN`, `inf` and `1e999`, which overflows to inf, are refused).
pub fn parse_finite(word: &str) -> Result<f64, String> {
    let value: f64 = word.parse().map_err(|_| format!("`{word}` is not a number"))?;
    if value.is_finite() {
        Ok(value)
    } else if value.is_nan() {
        Err(format!("`{word}` is not a number (NaN)"))
    } else {
        Err(format!("`{word}` is not a finite number"))
    }
}

/// Whether `value` lies within the limits of `name` (a limit that is NaN or absent does not
/// limit); else why not, with the limit.
pub fn within_limits(name: &str, value: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    if let Some(min) = min.filter(|min| !min.is_nan())
        && value < min
    {
        return Err(format!("{} is below the min of {name}, {}", show_value(value, None), show_value(min, None)));
    }
    if let Some(max) = max.filter(|max| !max.is_nan())
        && value > max
    {
        return Err(format!("{} is above the max of {name}, {}", show_value(value, None), show_value(max, None)));
    }
    Ok(())
}
