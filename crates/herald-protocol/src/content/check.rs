//! The violation collector and the field checker shared by `fields`, `questions` and `schema`.
//!
//! One checker serves all three ways of writing a form; a [`Source`] turns each part of a field
//! into the path the sender actually wrote (`fields[2].label`, `questions[0].question`,
//! `schema.properties.notes.title`), so an error always points at the offending input.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::answer::check_value;
use super::fields::{Field, FieldKind};
use super::limits::*;

/// One broken rule: the JSON path of the offending input and why.
///
/// Paths use `.` for keys and `[i]` for indices, from the content's root (`title`,
/// `fields[2].options[0].value`, `schema.properties.notes.pattern`, `blocks[1].rows[3]`); answer
/// violations are named by field id (`env`), or `actionId`/`values`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Collects violations while walking content.
#[derive(Default)]
pub(crate) struct Check(pub(crate) Vec<Violation>);

impl Check {
    /// Records a violation; the same path and message twice are recorded once (a question
    /// option's label is both its value and its label).
    pub(crate) fn fail(&mut self, path: impl Into<String>, message: impl Into<String>) {
        let v = Violation {
            path: path.into(),
            message: message.into(),
        };
        if !self.0.contains(&v) {
            self.0.push(v);
        }
    }

    /// `min..=max` characters. Too short reads "is empty" when nothing was given.
    pub(crate) fn text(&mut self, path: &str, value: &str, min: usize, max: usize) {
        let n = value.chars().count();
        if n == 0 && min > 0 {
            self.fail(path, format!("is empty: give 1–{max} characters"));
        } else if n < min {
            self.fail(
                path,
                format!("must have at least {min} characters (has {n})"),
            );
        } else if n > max {
            self.fail(
                path,
                format!("must have at most {max} characters (has {n})"),
            );
        }
    }

    /// A one-line label under the one rule of titles and names ([`crate::text::check_label`]):
    /// not blank, at most `max` characters, no control, line-break, bidirectional or
    /// zero-width characters.
    pub(crate) fn label(&mut self, path: &str, value: &str, max: usize) {
        if let Err(e) = crate::text::check_label(value, max) {
            self.fail(path, e.to_string());
        }
    }

    /// [`Check::label`] for an optional label.
    pub(crate) fn opt_label(&mut self, path: &str, value: Option<&str>, max: usize) {
        if let Some(v) = value {
            self.label(path, v, max);
        }
    }

    /// An optional text of at most `max` characters (and at least `min` when present).
    pub(crate) fn opt_text(&mut self, path: &str, value: Option<&str>, min: usize, max: usize) {
        if let Some(v) = value {
            self.text(path, v, min, max);
        }
    }

    pub(crate) fn done(self) -> Result<(), Vec<Violation>> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.0)
        }
    }
}

/// Field and action ids: 1–64 characters of `A–Z a–z 0–9 _ - .`.
pub(crate) fn check_id(c: &mut Check, path: &str, id: &str) {
    let ok = !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.'));
    if !ok {
        c.fail(
            path,
            format!("must be 1–{MAX_ID_CHARS} characters of A–Z, a–z, 0–9, _ - ."),
        );
    }
}

/// A part of a field, to be named by its [`Source`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Part {
    Id,
    Label,
    Type,
    Header,
    Help,
    Default,
    Options,
    /// Option `j`'s key: `value`, `label`, `description` or `preview`.
    Option(usize, &'static str),
    Minimum,
    Maximum,
    MinLength,
    MaxLength,
}

/// Where a field was written.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// `fields[i]`.
    Field(usize),
    /// `questions[i]`.
    Question(usize),
    /// `schema.properties.<name>`; `array` for string-enum arrays (options under `items`).
    Schema { name: &'a str, array: bool },
}

impl Source<'_> {
    /// The path of `part` as the sender wrote it.
    pub(crate) fn path(&self, part: Part) -> String {
        match *self {
            Source::Field(i) => {
                let base = format!("fields[{i}]");
                let key = match part {
                    Part::Id => "id",
                    Part::Label => "label",
                    Part::Type => "type",
                    Part::Header => "header",
                    Part::Help => "help",
                    Part::Default => "default",
                    Part::Options => "options",
                    Part::Option(j, key) => return format!("{base}.options[{j}].{key}"),
                    Part::Minimum => "minimum",
                    Part::Maximum => "maximum",
                    Part::MinLength => "minLength",
                    Part::MaxLength => "maxLength",
                };
                format!("{base}.{key}")
            }
            Source::Question(i) => {
                let base = format!("questions[{i}]");
                match part {
                    Part::Label => format!("{base}.question"),
                    Part::Header => format!("{base}.header"),
                    Part::Options => format!("{base}.options"),
                    Part::Option(j, "description") => format!("{base}.options[{j}].description"),
                    Part::Option(j, _) => format!("{base}.options[{j}].label"),
                    _ => base,
                }
            }
            Source::Schema { name, array } => {
                let base = format!("schema.properties.{name}");
                let options = if array { "items.enum" } else { "enum" };
                let key = match part {
                    Part::Id | Part::Header => return base,
                    Part::Label => "title",
                    Part::Type => "x-herald-type",
                    Part::Help => "description",
                    Part::Default => "default",
                    Part::Options => options,
                    Part::Option(j, _) => return format!("{base}.{options}[{j}]"),
                    Part::Minimum => "minimum",
                    Part::Maximum => "maximum",
                    Part::MinLength => "minLength",
                    Part::MaxLength => "maxLength",
                };
                format!("{base}.{key}")
            }
        }
    }
}

/// Checks one field's settings (not its id's uniqueness, which needs the whole form).
pub(crate) fn check_field(c: &mut Check, src: Source<'_>, field: &Field) {
    check_id(c, &src.path(Part::Id), &field.id);
    c.label(&src.path(Part::Label), &field.label, MAX_LABEL_CHARS);
    c.opt_label(
        &src.path(Part::Header),
        field.header.as_deref(),
        MAX_HEADER_CHARS,
    );
    c.opt_text(
        &src.path(Part::Help),
        field.help.as_deref(),
        0,
        MAX_HELP_CHARS,
    );
    if let Some((options, _)) = field.kind.options() {
        if options.is_empty() || options.len() > MAX_OPTIONS {
            c.fail(
                src.path(Part::Options),
                format!("must have 1–{MAX_OPTIONS} options"),
            );
        }
        let mut values = HashSet::new();
        for (j, option) in options.iter().enumerate() {
            let at = |key| src.path(Part::Option(j, key));
            c.label(&at("value"), &option.value, MAX_LABEL_CHARS);
            c.label(&at("label"), &option.label, MAX_LABEL_CHARS);
            c.opt_text(
                &at("description"),
                option.description.as_deref(),
                0,
                MAX_DESCRIPTION_CHARS,
            );
            c.opt_text(
                &at("preview"),
                option.preview.as_deref(),
                0,
                MAX_PREVIEW_CHARS,
            );
            if !values.insert(option.value.as_str()) {
                c.fail(at("value"), "duplicate option value");
            }
        }
    }
    check_bounds(c, src, field);
    if let Some(default) = &field.default {
        if let Err(e) = check_value(field, default) {
            c.fail(src.path(Part::Default), e);
        }
    }
}

fn check_bounds(c: &mut Check, src: Source<'_>, field: &Field) {
    let b = &field.bounds;
    let kind = field.kind.type_name();
    for (part, bound, key) in [
        (Part::Minimum, &b.minimum, "minimum"),
        (Part::Maximum, &b.maximum, "maximum"),
    ] {
        let Some(n) = bound else { continue };
        if !field.kind.is_numeric() {
            c.fail(
                src.path(part),
                format!("{key} applies to number and integer fields, not {kind}"),
            );
        } else if field.kind == FieldKind::Integer && !is_integral(n) {
            c.fail(
                src.path(part),
                format!("{key} of an integer field must be whole"),
            );
        }
    }
    if let (Some(lo), Some(hi)) = (&b.minimum, &b.maximum) {
        if cmp_numbers(lo, hi) == Ordering::Greater {
            c.fail(src.path(Part::Maximum), "must not be below minimum");
        }
    }
    for (part, bound, key) in [
        (Part::MinLength, b.min_length, "minLength"),
        (Part::MaxLength, b.max_length, "maxLength"),
    ] {
        let Some(n) = bound else { continue };
        if !field.kind.is_text() {
            c.fail(
                src.path(part),
                format!("{key} applies to text, textarea and secret fields, not {kind}"),
            );
        } else if n as usize > MAX_TEXT_ANSWER_CHARS {
            c.fail(
                src.path(part),
                format!("must be at most {MAX_TEXT_ANSWER_CHARS}"),
            );
        }
    }
    if let (Some(lo), Some(hi)) = (b.min_length, b.max_length) {
        if lo > hi {
            c.fail(src.path(Part::MaxLength), "must not be below minLength");
        }
    }
}

/// A JSON number with no fractional part (`3` or `3.0`).
pub(crate) fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Orders two JSON numbers by their exact values. Integers (i64/u64) compare exactly, also
/// against floats: converting a large integer to `f64` would round it (2^53 + 1 would pass a
/// `maximum` of 2^53). Floats compare as `f64`.
pub(crate) fn cmp_numbers(a: &serde_json::Number, b: &serde_json::Number) -> Ordering {
    fn int(n: &serde_json::Number) -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    }
    /// `x` against `f`: `f.floor()` is an exact integer, saturated far beyond any i64/u64.
    fn int_float(x: i128, f: f64) -> Ordering {
        let floor = f.floor();
        match x.cmp(&(floor as i128)) {
            Ordering::Equal if f > floor => Ordering::Less,
            other => other,
        }
    }
    // Without serde_json's arbitrary_precision a number is an i64, a u64 or a finite f64.
    let float = |n: &serde_json::Number| n.as_f64().unwrap_or(0.0);
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(x), None) => int_float(x, float(b)),
        (None, Some(y)) => int_float(y, float(a)).reverse(),
        (None, None) => float(a).partial_cmp(&float(b)).unwrap_or(Ordering::Equal),
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Ordering::{Equal, Greater, Less};

    use serde_json::Number;

    use super::cmp_numbers;

    fn n(text: &str) -> Number {
        serde_json::from_str(text).expect("a JSON number")
    }

    #[test]
    fn numbers_compare_exactly() {
        // Found by the schema_form fuzz target: as f64 both sides were 2^53.
        for (a, b, want) in [
            ("9007199254740993", "9007199254740992", Greater),
            ("9007199254740993", "9007199254740992.0", Greater),
            ("9007199254740992.0", "9007199254740993", Less),
            ("18446744073709551615", "-9223372036854775808", Greater),
            ("3", "3.0", Equal),
            ("3", "3.5", Less),
            ("-3", "-3.5", Greater),
            ("-0.0", "0", Equal),
            ("0.1", "0.30000000000000004", Less),
            ("1e300", "18446744073709551615", Greater),
        ] {
            assert_eq!(cmp_numbers(&n(a), &n(b)), want, "{a} vs {b}");
            assert_eq!(cmp_numbers(&n(b), &n(a)), want.reverse(), "{b} vs {a}");
        }
    }

    #[test]
    fn numbers_read_back_as_written() {
        // Found by the content and schema_form fuzz targets: without serde_json's
        // float_roundtrip a bound read back from its own JSON could move by one ulp.
        for text in [
            "900719925474099254740993",
            "9.007199254740993e23",
            "0.30000000000000004",
        ] {
            let first = n(text);
            assert_eq!(n(&first.to_string()), first, "{text}");
        }
    }
}
