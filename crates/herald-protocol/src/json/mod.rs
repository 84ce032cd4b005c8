//! Strict JSON reading for everything a person or an agent writes: content (`herald ask
//! --json`), schemas, table files, answers, `herald mcp` arguments and the relay's request
//! bodies all go through [`parse_value`] and [`from_value`], so they share one rule set and one
//! wording.
//!
//! - A key given twice in one object is refused, naming its path (`fields[0].label`): plain
//!   JSON parsers keep the last one silently, which can drop what the writer meant.
//! - Errors never carry serde's wording ("invalid type: …", "expected struct MessageContent
//!   with 9 elements"): [`JsonError`] names the path (`.` for keys, `[i]` for indices, from
//!   the root; empty for the root itself) and says what was expected in our words, without
//!   echoing the input's values.
//! - Unknown keys: [`from_value_known`] reports every key the target type ignores, with the
//!   same path form, so callers that refuse them (content, MCP arguments) name them alike.

mod shape;

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use shape::Objects;

/// Why a JSON text was refused: the path of the offending input (empty: the whole text) and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// `title`, `fields[2].options`, `values.reason`; empty for the root.
    pub path: String,
    /// What is wrong, e.g. `expected a string, found a number`.
    pub message: String,
    /// Whether the text is not JSON at all (a syntax error or an early end), rather than JSON
    /// of the wrong shape.
    pub syntax: bool,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for JsonError {}

/// `parent.key` (or `key` at the root).
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// Checks one JSON text: it parses, nothing follows the value, and no object repeats a key.
/// Errors: not JSON (with line and column), a duplicate key (its path).
pub fn check(bytes: &[u8]) -> Result<(), JsonError> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let seed = Strict {
        path: String::new(),
        duplicate: &duplicate,
    };
    let parsed = seed.deserialize(&mut de).and_then(|()| de.end());
    match parsed {
        Ok(()) => Ok(()),
        Err(e) => Err(duplicate.into_inner().unwrap_or_else(|| syntax_error(&e))),
    }
}

/// Parses one JSON text into a value after [`check`]ing it. (A `Value`'s objects are sorted
/// by key; parse content with a schema through [`from_slice`], which keeps the order.)
pub fn parse_value(bytes: &[u8]) -> Result<Value, JsonError> {
    check(bytes)?;
    serde_json::from_slice(bytes).map_err(|e| syntax_error(&e))
}

/// [`parse_value`] of a string.
pub fn parse_str(text: &str) -> Result<Value, JsonError> {
    parse_value(text.as_bytes())
}

/// [`check`]s the text and parses it into `T` (straight from the text, so object order is
/// kept); a shape or type error names its path and what was expected. Keys `T` does not know
/// are ignored (see [`from_slice_known`] to refuse them).
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, JsonError> {
    check(bytes)?;
    shape_first::<T>(bytes)?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed =
        serde_path_to_error::deserialize(&mut de).map_err(|e| shape_error(e.path(), e.inner()))?;
    de.end().map_err(|e| syntax_error(&e))?;
    Ok(parsed)
}

/// [`from_slice`] of a string.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    from_slice(text.as_bytes())
}

/// Like [`from_slice`], also returning the path of every key `T` ignored (a typo such as
/// `requird`, or a key outside the shape), in the same path form.
pub fn from_slice_known<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, Vec<String>), JsonError> {
    check(bytes)?;
    shape_first::<T>(bytes)?;
    let mut unknown = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = {
        let mut record = |path: serde_ignored::Path<'_>| unknown.push(ignored_path(&path));
        let ignoring = serde_ignored::Deserializer::new(&mut de, &mut record);
        serde_path_to_error::deserialize::<_, T>(ignoring)
    };
    let parsed = parsed.map_err(|e| shape_error(e.path(), e.inner()))?;
    de.end().map_err(|e| syntax_error(&e))?;
    Ok((parsed, unknown))
}

/// Converts a value into `T`; a shape or type error names its path and what was expected.
/// Keys `T` does not know are ignored.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, JsonError> {
    let original = value.clone();
    plain_from_value(value).map_err(|e| locate::<T>(&original, e))
}

/// [`from_value`] without [`locate`]: arrays where an object is expected are refused.
fn plain_from_value<T: DeserializeOwned>(value: Value) -> Result<T, JsonError> {
    serde_path_to_error::deserialize(Objects(value)).map_err(|e| shape_error(e.path(), e.inner()))
}

/// A type error reported at a buffered struct's path, moved to the key it belongs to
/// ([`shape::locate`]).
fn locate<T: DeserializeOwned>(original: &Value, error: JsonError) -> JsonError {
    shape::locate(original, error, |v| plain_from_value::<T>(v).map(|_| ()))
}

/// Reads the (already [`check`]ed) text as a value and converts it into `T` first, so shape
/// errors that reading straight from the text would miss (an array for an object) or place
/// at a parent (a key inside flattened content) are found and named; the text is then read
/// again straight into `T`, keeping object order.
fn shape_first<T: DeserializeOwned>(bytes: &[u8]) -> Result<(), JsonError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| syntax_error(&e))?;
    from_value::<T>(value).map(|_| ())
}

/// Like [`from_value`], also returning the path of every key `T` ignored.
pub fn from_value_known<T: DeserializeOwned>(value: Value) -> Result<(T, Vec<String>), JsonError> {
    let original = value.clone();
    let mut unknown = Vec::new();
    let parsed = {
        let mut record = |path: serde_ignored::Path<'_>| unknown.push(ignored_path(&path));
        let de = serde_ignored::Deserializer::new(Objects(value), &mut record);
        serde_path_to_error::deserialize::<_, T>(de)
    };
    let parsed = parsed.map_err(|e| locate::<T>(&original, shape_error(e.path(), e.inner())))?;
    Ok((parsed, unknown))
}

/// `questions[0].secret` from serde_ignored's path.
fn ignored_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", ignored_path(parent)),
        Path::Map { parent, key } => join(&ignored_path(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}

fn syntax_error(e: &serde_json::Error) -> JsonError {
    use serde_json::error::Category;
    let (line, column) = (e.line(), e.column());
    let message = match e.classify() {
        Category::Eof => format!("the JSON ends early (line {line}, column {column})"),
        Category::Io => "the JSON could not be read".to_owned(),
        // The seed reports duplicates itself; anything else here is malformed text.
        Category::Syntax | Category::Data => {
            format!("not valid JSON at line {line}, column {column}")
        }
    };
    JsonError {
        path: String::new(),
        message,
        syntax: true,
    }
}

/// `fields[0].label` from serde_path_to_error's path.
fn error_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => out = join(&out, key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Our wording for one of serde's data errors (the texts of `serde::de::Error`'s provided
/// constructors), naming the path; any other text is a message of Herald's own types (an id
/// that does not parse, …) and is kept.
fn shape_error(path: &serde_path_to_error::Path, error: &serde_json::Error) -> JsonError {
    let path = error_path(path);
    let text = error.to_string();
    let text = text.split(" at line ").next().unwrap_or_default();
    let between = |s: &str| s.split('`').nth(1).unwrap_or_default().to_owned();
    let (path, message) = if let Some(rest) = text.strip_prefix("missing field ") {
        (join(&path, &between(rest)), "is required".to_owned())
    } else if let Some(rest) = text.strip_prefix("duplicate field ") {
        (join(&path, &between(rest)), "is given twice".to_owned())
    } else if let Some(rest) = text.strip_prefix("unknown field ") {
        (join(&path, &between(rest)), "is not a known key".to_owned())
    } else if let Some(rest) = text.strip_prefix("unknown variant ") {
        let given = between(rest);
        let allowed: Vec<String> = rest
            .split_once("expected ")
            .map(|(_, list)| {
                list.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let shown = if given.chars().count() <= 64 {
            format!("{given:?} is not one of")
        } else {
            "not one of".to_owned()
        };
        (path, format!("{shown}: {}", allowed.join(", ")))
    } else if let Some(rest) = text
        .strip_prefix("invalid type: ")
        .or_else(|| text.strip_prefix("invalid value: "))
    {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        (
            path,
            format!(
                "expected {}, found {}",
                expected_text(expected),
                found_text(found)
            ),
        )
    } else if let Some(rest) = text.strip_prefix("invalid length ") {
        let expected = rest.split_once(", expected ").map_or("", |(_, e)| e);
        let message = if expected.starts_with("struct ") || expected.contains(" map") {
            "expected an object, found an array".to_owned()
        } else {
            format!("has the wrong number of items (expected {expected})")
        };
        (path, message)
    } else if text.starts_with("data did not match any variant") {
        (path, "does not have any of the accepted shapes".to_owned())
    } else {
        (path, text.to_owned())
    };
    JsonError {
        path,
        message,
        syntax: false,
    }
}

/// What serde expected, in our words: `struct X` / `a map` → an object, `a sequence` → an
/// array, unsigned integer types → a whole number ≥ 0.
fn expected_text(expected: &str) -> String {
    let e = expected.trim();
    if e.starts_with("struct ")
        || e.starts_with("internally tagged enum")
        || e.starts_with("adjacently tagged enum")
        || matches!(e, "a map" | "map")
    {
        "an object".into()
    } else if e.starts_with("tuple") || matches!(e, "a sequence" | "sequence") {
        "an array".into()
    } else if matches!(e, "u8" | "u16" | "u32" | "u64" | "u128" | "usize") {
        "a whole number ≥ 0".into()
    } else if matches!(e, "i8" | "i16" | "i32" | "i64" | "i128" | "isize") {
        "a whole number".into()
    } else if matches!(e, "f32" | "f64" | "a JSON number") {
        "a number".into()
    } else if e == "a borrowed string" || e == "a string" || e == "string" {
        "a string".into()
    } else if e == "a boolean" || e == "bool" {
        "true or false".into()
    } else if let Some(name) = e.strip_prefix("enum ") {
        format!("one of the {name} values")
    } else if e.is_empty() {
        "something else".into()
    } else {
        e.to_owned()
    }
}

/// What the input held, by JSON type only (values are never echoed).
fn found_text(found: &str) -> &'static str {
    let f = found.trim();
    if f.starts_with("string") || f.starts_with("character") {
        "a string"
    } else if f.starts_with("integer") || f.starts_with("floating point") {
        "a number"
    } else if f.starts_with("boolean") {
        "true/false"
    } else if f == "sequence" {
        "an array"
    } else if f == "map" {
        "an object"
    } else if f == "null" || f.starts_with("unit") || f == "Option value" {
        "null"
    } else {
        "another type"
    }
}

/// Walks a value, checking its objects for repeated keys.
struct Strict<'a> {
    path: String,
    duplicate: &'a RefCell<Option<JsonError>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        while seq
            .next_element_seed(Strict {
                path: format!("{}[{index}]", self.path),
                duplicate: self.duplicate,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = join(&self.path, &key);
            if !keys.insert(key) {
                *self.duplicate.borrow_mut() = Some(JsonError {
                    path,
                    message: "this key appears twice in one object; give it once".into(),
                    syntax: false,
                });
                return Err(de::Error::custom("duplicate key"));
            }
            map.next_value_seed(Strict {
                path,
                duplicate: self.duplicate,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{AnswerContent, FormSchema, MessageContent};

    #[test]
    fn duplicate_keys_are_refused_with_their_path() {
        let err = parse_str(r#"{"title":"a","title":"b"}"#).unwrap_err();
        assert_eq!(err.path, "title", "{err}");
        let err = parse_str(r#"{"fields":[{"id":"a"},{"id":"b","id":"c"}]}"#).unwrap_err();
        assert_eq!(err.path, "fields[1].id", "{err}");
        let err = parse_str(r#"{"a":{"b":[[{"c":1,"c":2}]]}}"#).unwrap_err();
        assert_eq!(err.path, "a.b[0][0].c", "{err}");
        assert!(!err.syntax);
        assert_eq!(
            parse_str(r#"{"a":[1,2.5,"x",null,true,{}],"b":{"a":1}}"#).unwrap(),
            serde_json::json!({"a":[1,2.5,"x",null,true,{}],"b":{"a":1}}),
            "same keys in different objects are fine"
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let err = parse_str("{\"title\": }").unwrap_err();
        assert!(err.syntax);
        assert!(err.message.contains("line 1, column"), "{err}");
        assert!(parse_str("{} {}").unwrap_err().syntax, "trailing data");
        assert!(parse_str("{\"a\":")
            .unwrap_err()
            .message
            .contains("ends early"));
    }

    #[test]
    fn shape_errors_are_ours() {
        let err = from_str::<MessageContent>("[]").unwrap_err();
        assert_eq!(err.to_string(), "expected an object, found an array");
        let err = from_str::<MessageContent>(r#"{"title": 3}"#).unwrap_err();
        assert_eq!(err.to_string(), "title: expected a string, found a number");
        let err = from_str::<MessageContent>(r#"{"body":"x"}"#).unwrap_err();
        assert_eq!(err.to_string(), "title: is required");
        let err = from_str::<MessageContent>(
            r#"{"title":"t","fields":[{"id":"a","label":"A","type":"colour"}]}"#,
        )
        .unwrap_err();
        assert!(
            err.message.contains("\"colour\" is not one of: text"),
            "{err}"
        );
        assert!(!err.message.contains('`'), "{err}");
        let err =
            from_str::<MessageContent>(r#"{"title":"t","requiresReview":"yes"}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "requiresReview: expected true or false, found a string"
        );
        let err = from_str::<AnswerContent>(r#"{"values": []}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "values: expected an object, found an array"
        );
        let schema: FormSchema = from_str(
            r#"{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}"#,
        )
        .unwrap();
        let names: Vec<&str> = schema.properties.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["z", "a"], "property order is kept");
        let err = from_str::<FormSchema>(r#"{"type":"object","properties":[]}"#).unwrap_err();
        assert!(err.message.starts_with("expected an object"), "{err}");
        for err in [
            from_str::<MessageContent>("[1]").unwrap_err(),
            from_str::<MessageContent>(r#"{"title":"t","fields":{}}"#).unwrap_err(),
        ] {
            for serde_word in ["invalid type", "struct", "elements", "sequence", "`"] {
                assert!(!err.message.contains(serde_word), "{err}");
            }
        }
    }

    #[test]
    fn arrays_are_refused_where_an_object_is_expected() {
        for text in [
            r#"["arr title","body text"]"#,
            r#"{"title":"t","questions":[["Q?","H",[{"label":"a"}]]]}"#,
            r#"{"title":"t","blocks":[["code","x"]]}"#,
            r#"{"title":"t","fields":[["a","text","A"]]}"#,
        ] {
            for err in [
                from_str::<MessageContent>(text).unwrap_err(),
                from_slice_known::<MessageContent>(text.as_bytes()).unwrap_err(),
                from_value::<MessageContent>(parse_str(text).unwrap()).unwrap_err(),
                from_value_known::<MessageContent>(parse_str(text).unwrap()).unwrap_err(),
            ] {
                assert!(
                    err.message.contains("expected an object, found an array"),
                    "{text}: {err}"
                );
            }
        }
        let err = from_str::<MessageContent>(r#"{"title":"t","questions":[["Q?"]]}"#).unwrap_err();
        assert_eq!(err.path, "questions[0]", "{err}");
        let err = from_str::<AnswerContent>(r#"[{}, []]"#).unwrap_err();
        assert_eq!(err.to_string(), "expected an object, found an array");
    }

    #[test]
    fn type_errors_inside_flattened_content_name_the_key() {
        for (text, path) in [
            (
                r#"{"title":"t","fields":[{"id":"a","type":"text","label":"A","maxLength":-1}]}"#,
                "fields[0].maxLength",
            ),
            (
                r#"{"title":"t","fields":[{"id":"a","type":"number","label":"A","minimum":"x"}]}"#,
                "fields[0].minimum",
            ),
            (
                r#"{"title":"t","fields":[{"id":"a","type":"choice","label":"A","options":[{"value":1,"label":"One"}]}]}"#,
                "fields[0].options[0].value",
            ),
            (
                r#"{"title":"t","blocks":[{"type":"table","columns":"x","rows":[]}]}"#,
                "blocks[0].columns",
            ),
        ] {
            let err = from_str::<MessageContent>(text).unwrap_err();
            assert_eq!(err.path, path, "{text}: {err}");
            let err = from_value_known::<MessageContent>(parse_str(text).unwrap()).unwrap_err();
            assert_eq!(err.path, path, "{text}: {err}");
        }
    }

    #[test]
    fn unknown_keys_use_the_same_path_form() {
        let text =
            r#"{"title":"t","requird":true,"questions":[{"question":"q","options":[],"x":1}]}"#;
        let (_, unknown) = from_slice_known::<MessageContent>(text.as_bytes()).unwrap();
        assert_eq!(unknown, ["requird", "questions[0].x"]);
        let (_, unknown) = from_value_known::<MessageContent>(parse_str(text).unwrap()).unwrap();
        assert_eq!(
            unknown,
            ["questions[0].x", "requird"],
            "a value's keys are sorted"
        );
    }
}
