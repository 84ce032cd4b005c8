//! Quoting for the commands Herald prints for the person to run again (resume hints such as
//! `herald wait <id> --out <path>`). A leaf: it calls nothing else in the CLI.

/// `word` as one shell word: as is when it holds only characters no shell treats specially,
/// else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
