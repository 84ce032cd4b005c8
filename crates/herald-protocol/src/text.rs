//! Rules for single-line labels a person reads to decide something: device, connection,
//! agent-key and connector names, notification titles. Besides control characters (each
//! caller refuses those), a label may not carry characters that are invisible yet change what
//! is shown: bidirectional formatting (Unicode UAX #9: U+061C, U+200E, U+200F,
//! U+202A–U+202E, U+2066–U+2069), which can make `U+202E gnp.exe` read as `exe.png`, and zero-width
//! characters that hide or pad text (U+200B, U+2060, U+FEFF, U+180E). The zero-width
//! (non-)joiners U+200C and U+200D are part of Persian and Indic writing and of emoji
//! sequences, so they are allowed between two visible characters and refused anywhere else
//! (leading, trailing, next to a space or another invisible character).

/// Bidirectional formatting characters and zero-width characters that are never needed in a
/// label (see the module documentation).
pub fn is_hidden_format(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// Whether `label` carries a character a reader cannot see that changes or hides the text: a
/// [`is_hidden_format`] character anywhere, or a zero-width (non-)joiner that is not between
/// two visible characters.
pub fn has_hidden_characters(label: &str) -> bool {
    let chars: Vec<char> = label.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        if is_hidden_format(c) {
            return true;
        }
        if !is_joiner(c) {
            return false;
        }
        let visible = |o: Option<&char>| {
            o.is_some_and(|&n| {
                !n.is_whitespace() && !n.is_control() && !is_joiner(n) && !is_hidden_format(n)
            })
        };
        !(visible(i.checked_sub(1).and_then(|p| chars.get(p))) && visible(chars.get(i + 1)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
