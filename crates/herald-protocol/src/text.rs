//! Rules for single-line labels a person reads to decide something: device, connection,
//! agent-key and connector names, notification titles. A label may not carry characters that
//! are invisible yet change what is shown, judged by Unicode properties rather than a list:
//!
//! - General categories Cc (control), Cf (format: bidirectional controls such as U+202E,
//!   which can make `U+202E gnp.exe` read as `exe.png`, zero-width spaces, soft hyphen, tag
//!   characters U+E0000–U+E007F that carry invisible "ASCII smuggling" text, interlinear
//!   annotations, ...), Zl and Zp (U+2028/U+2029, a second line in a one-line label), Co
//!   (private use), Cs (surrogates) and Cn (unassigned), from the `unicode-general-category`
//!   crate (Unicode 16.0).
//! - The Default_Ignorable_Code_Point characters that are not Cf ([`is_ignorable_non_format`],
//!   from Unicode's DerivedCoreProperties.txt): combining grapheme joiner, Hangul fillers,
//!   Khmer inherent vowels, Mongolian free variation selectors, variation selectors.
//!
//! Three exceptions keep real writing and emoji: the zero-width (non-)joiners U+200C and
//! U+200D (Persian and Indic writing, emoji ZWJ sequences) are allowed between two visible
//! characters; variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) and Mongolian free
//! variation selectors (U+180B–U+180D, U+180F) are allowed right after a visible character
//! (`❤️` is U+2764 U+FE0F). A non-empty label must also hold at least one visible character
//! that is not a combining mark and not blank (whitespace, U+2800 braille blank), so names made
//! of marks, fillers or blanks only are refused.

use unicode_general_category::{get_general_category, GeneralCategory as Gc};

/// Variation selectors: VS1–VS16 (U+FE00–U+FE0F), VS17–VS256 (U+E0100–U+E01EF) and the
/// Mongolian free variation selectors (U+180B–U+180D, U+180F).
fn is_variation_selector(c: char) -> bool {
    matches!(
        c,
        '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}'
    )
}

/// Default_Ignorable_Code_Point characters (Unicode 16.0 DerivedCoreProperties.txt) whose
/// general category is not Cf: U+034F combining grapheme joiner, U+115F–U+1160 and U+3164,
/// U+FFA0 Hangul fillers, U+17B4–U+17B5 Khmer inherent vowels, U+180B–U+180D and U+180F
/// Mongolian free variation selectors, U+FE00–U+FE0F and U+E0100–U+E01EF variation selectors
/// (the other ranges of that file are Cf, or Cn reserved code points). No maintained crate
/// exposes this property, hence the table.
pub fn is_ignorable_non_format(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{3164}'
            | '\u{FFA0}'
    ) || is_variation_selector(c)
}

fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// Characters never allowed in a label: general category Cc, Cf, Zl, Zp, Co, Cs or Cn, or a
/// Default_Ignorable_Code_Point that is not a variation selector (see the module
/// documentation). The joiners U+200C/U+200D (Cf) are handled by [`has_hidden_characters`].
pub fn is_hidden_format(c: char) -> bool {
    if is_joiner(c) || is_variation_selector(c) {
        return false;
    }
    matches!(
        get_general_category(c),
        Gc::Control
            | Gc::Format
            | Gc::LineSeparator
            | Gc::ParagraphSeparator
            | Gc::PrivateUse
            | Gc::Surrogate
            | Gc::Unassigned
    ) || is_ignorable_non_format(c)
}

fn is_mark(c: char) -> bool {
    matches!(
        get_general_category(c),
        Gc::NonspacingMark | Gc::SpacingMark | Gc::EnclosingMark
    )
}

/// Blank-looking: whitespace or U+2800 BRAILLE PATTERN BLANK.
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{2800}'
}

/// A character that shows something: not blank, not hidden, not a joiner or variation
/// selector (combining marks count: they are drawn on their base).
fn is_visible(c: char) -> bool {
    !is_blank(c) && !is_hidden_format(c) && !is_joiner(c) && !is_variation_selector(c)
}

/// Whether `label` carries a character a reader cannot see that changes or hides the text: an
/// [`is_hidden_format`] character anywhere, a zero-width (non-)joiner that is not between two
/// visible characters (a variation selector may stand between the first and the joiner, as in
/// `❤️‍🔥`), a variation selector that does not follow a visible character, or — for a
/// non-empty label — no visible character other than combining marks. An empty label is not
/// hidden (callers refuse it on their own terms).
pub fn has_hidden_characters(label: &str) -> bool {
    let chars: Vec<char> = label.chars().collect();
    let prev = |i: usize| i.checked_sub(1).and_then(|p| chars.get(p)).copied();
    let hidden = chars.iter().enumerate().any(|(i, &c)| {
        if is_hidden_format(c) {
            return true;
        }
        if is_variation_selector(c) {
            return !prev(i).is_some_and(is_visible);
        }
        if !is_joiner(c) {
            return false;
        }
        // A variation selector before the joiner was checked on its own (it follows a visible
        // character); the joiner then continues that character.
        let before = prev(i).is_some_and(|p| is_visible(p) || is_variation_selector(p));
        !(before && chars.get(i + 1).copied().is_some_and(is_visible))
    });
    hidden || (!chars.is_empty() && !chars.iter().any(|&c| is_visible(c) && !is_mark(c)))
}

/// Why a one-line label (a title or a name) is refused by [`check_label`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    /// Empty (no characters at all).
    #[error("is empty: give 1–{max} characters")]
    Empty { max: usize },
    /// Only whitespace.
    #[error("is blank (only spaces): give 1–{max} visible characters")]
    Blank { max: usize },
    /// Longer than the label's limit (characters, Unicode scalar values).
    #[error("must have at most {max} characters (has {has})")]
    TooLong { max: usize, has: usize },
    /// Holds a character [`has_hidden_characters`] refuses (control characters, line breaks,
    /// bidirectional controls, zero-width characters), or nothing visible.
    #[error(
        "must be one line of visible text: no control characters, line breaks, tabs, \
         bidirectional controls or zero-width characters"
    )]
    Hidden,
}

/// The one rule for every title and name a person reads to decide something: end-to-end
/// message titles (and block titles, field, option and action labels), notification titles,
/// device, connection, agent-key and connector names. `label` must not be blank, must have at
/// most `max` characters (counted untrimmed), and must not [`has_hidden_characters`] — which
/// covers every control character (tab, newline and CR included), U+2028/U+2029, bidirectional
/// controls, zero-width characters outside joiner sequences, and labels with nothing visible.
/// Checked in that order; the first failure is returned.
pub fn check_label(label: &str, max: usize) -> Result<(), LabelError> {
    if label.is_empty() {
        return Err(LabelError::Empty { max });
    }
    if label.trim().is_empty() {
        return Err(LabelError::Blank { max });
    }
    let has = label.chars().count();
    if has > max {
        return Err(LabelError::TooLong { max, has });
    }
    if has_hidden_characters(label) {
        return Err(LabelError::Hidden);
    }
    Ok(())
}

/// `label` made safe to show when it breaks [`check_label`]'s character rule: every character
/// that is not visible and not a plain space (controls, line breaks, tabs, bidirectional
/// controls, zero-width characters, joiners and variation selectors alike) is replaced by its
/// visible escape (`\u{202e}`), so nothing reorders, hides or forges the text; a label with
/// nothing left to see becomes `(blank title)`. A label the rule accepts is returned as is.
pub fn inert_label(label: &str) -> String {
    if !label.trim().is_empty() && !has_hidden_characters(label) {
        return label.to_owned();
    }
    let mut out = String::with_capacity(label.len());
    for c in label.chars() {
        if c == ' ' || is_visible(c) || is_mark(c) {
            out.push(c);
        } else {
            out.extend(c.escape_unicode());
        }
    }
    if out.trim().is_empty() {
        return "(blank title)".to_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_label_is_made_inert() {
        assert_eq!(inert_label("Deploy ❤️ v2"), "Deploy ❤️ v2");
        assert_eq!(inert_label("\u{202E}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(inert_label("Approve\nReject"), "Approve\\u{a}Reject");
        assert_eq!(inert_label("\u{200B}"), "\\u{200b}");
        assert_eq!(inert_label("  "), "(blank title)");
        assert_eq!(inert_label(""), "(blank title)");
    }

    #[test]
    fn one_label_rule_for_titles_and_names() {
        assert_eq!(check_label("Deploy v2?", 180), Ok(()));
        assert_eq!(check_label("👨\u{200D}💻 laptop", 100), Ok(()));
        assert_eq!(check_label("", 180), Err(LabelError::Empty { max: 180 }));
        assert_eq!(
            check_label(" \t ", 180),
            Err(LabelError::Blank { max: 180 })
        );
        assert_eq!(
            check_label(&"x".repeat(181), 180),
            Err(LabelError::TooLong { max: 180, has: 181 })
        );
        assert_eq!(check_label(&"x".repeat(180), 180), Ok(()));
        for bad in [
            "Approve\nReject",
            "line\r",
            "tab\there",
            "bell\u{7}",
            "esc\u{1b}[31m",
            "\u{202E}gnp.exe",
            "a\u{2028}b",
            "\u{200B}\u{200B}",
            "\u{200D}",
            "\u{2800}",
            "\u{0301}",
        ] {
            assert_eq!(check_label(bad, 180), Err(LabelError::Hidden), "{bad:?}");
        }
    }

    #[test]
    fn bidi_overrides_and_zero_width_spaces_are_hidden() {
        for bad in [
            "\u{202E}gnp.exe",
            "a\u{2066}b",
            "x\u{200F}",
            "\u{061C}",
            "pad\u{200B}ded",
            "\u{FEFF}bom",
            "\u{2060}",
        ] {
            assert!(has_hidden_characters(bad), "{bad:?}");
        }
    }

    #[test]
    fn joiners_only_between_visible_characters() {
        // Emoji ZWJ sequence and Persian ZWNJ: real text.
        for good in [
            "👨\u{200D}💻 laptop",
            "می\u{200C}خواهم",
            "Work laptop",
            "Ünïcödé",
        ] {
            assert!(!has_hidden_characters(good), "{good:?}");
        }
        for bad in [
            "\u{200D}",
            "a\u{200D}",
            "\u{200C}a",
            "a \u{200D}b",
            "a\u{200D}\u{200D}b",
        ] {
            assert!(has_hidden_characters(bad), "{bad:?}");
        }
    }
}

#[cfg(test)]
mod property_tests {
    use super::*;

    #[test]
    fn review_bypasses_are_refused() {
        for bad in [
            "line\u{2028}two",
            "para\u{2029}two",
            "soft\u{00AD}hyphen",
            "tag\u{E0041}\u{E007F}",
            "\u{E0001}lang",
            "inhibit\u{206A}",
            "nominal\u{206F}digits",
            "anno\u{FFF9}ruby\u{FFFA}base\u{FFFB}",
            "music\u{1D173}",
            "music\u{1D17A}",
            "hiero\u{13430}",
            "hiero\u{1343F}",
            "cgj\u{034F}x",
            "\u{FE0F}",
            " \u{FE0F}x",
            "a\u{FE0F}\u{FE0F}",
            "\u{115F}",
            "\u{1160}",
            "\u{3164}",
            "\u{FFA0}",
            "x\u{3164}y",
            "\u{2800}",
            "\u{2800}\u{2800} ",
            "\u{0301}\u{0308}",
            "\u{094D}",
            "\u{20E3}",
            "\u{17B4}a",
            "priv\u{E000}",
            "unassigned\u{0378}",
            "a\u{E0100}\u{E0100}",
        ] {
            assert!(has_hidden_characters(bad), "{bad:?}");
        }
    }

    #[test]
    fn real_names_pass() {
        for good in [
            "👩\u{200D}💻 Laptop",
            "❤\u{FE0F}",
            "❤\u{FE0F}\u{200D}🔥",
            "🏳\u{FE0F}\u{200D}🌈 flag",
            "1\u{FE0F}\u{20E3}",
            "👍🏽",
            "می\u{200C}خواهم",
            "हिन्दी",
            "क्\u{200D}ष",
            "日本語のノートパソコン",
            "Crème brûlée",
            "e\u{0301}cole",
            "ᠮᠣᠩᠭᠣᠯ\u{180B}",
            "a\u{2800}b",
            "",
        ] {
            assert!(!has_hidden_characters(good), "{good:?}");
        }
    }
}
