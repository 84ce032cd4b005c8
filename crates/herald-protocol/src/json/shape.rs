//! A `serde_json::Value` deserializer that refuses an array where an object is expected.
//!
//! serde lets a struct (and an internally tagged enum) be written as an array of its fields
//! in order, so `["a title", "a body"]` would read as content. [`Objects`] is `Value`'s own
//! deserializer except that an array given to a struct, or to a visitor expecting a struct or
//! a tagged enum, is `expected an object, found an array`; [`locate`] finds the key a type
//! error inside buffered content (flattened or internally tagged types) belongs to.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::{Map, Value};

/// `Value`'s deserializer, refusing arrays where an object is expected (module docs).
pub(crate) struct Objects(pub(crate) Value);

/// The visitor's own "expecting" text.
struct Expecting<'a, V>(&'a V);

impl<'de, V: Visitor<'de>> std::fmt::Display for Expecting<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.expecting(f)
    }
}

/// Whether `visitor` wants an object (a struct, a flattened struct or a tagged enum).
fn wants_object<'de, V: Visitor<'de>>(visitor: &V) -> bool {
    let text = Expecting(visitor).to_string();
    text.starts_with("struct ")
        || text.starts_with("internally tagged enum")
        || text.starts_with("adjacently tagged enum")
}

fn array_refused<'de, V: Visitor<'de>>(visitor: &V) -> serde_json::Error {
    de::Error::invalid_type(Unexpected::Seq, visitor)
}

impl<'de> Deserializer<'de> for Objects {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(items) => {
                if wants_object(&visitor) {
                    return Err(array_refused(&visitor));
                }
                let len = items.len();
                let mut seq = Seq(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                if seq.0.len() == 0 {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(len, &"fewer elements in array"))
                }
            }
            Value::Object(map) => visitor.visit_map(Entries(map.into_iter(), None)),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(_) => Err(array_refused(&visitor)),
            other => Objects(other).deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Objects(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        match self.0.next() {
            Some(v) => seed.deserialize(Objects(v)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries(serde_json::map::IntoIter, Option<Value>);

impl<'de> MapAccess<'de> for Entries {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.0.next() {
            Some((key, value)) => {
                self.1 = Some(value);
                seed.deserialize(Objects(Value::String(key))).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        match self.1.take() {
            Some(v) => seed.deserialize(Objects(v)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// A sample of what a type error's message says was expected (`expected a string, found …`
/// → `"x"`), or `None` when it names no JSON type.
fn sample(expected: &str) -> Option<Value> {
    Some(match expected {
        "a string" => Value::String("x".into()),
        "a whole number ≥ 0" | "a whole number" | "a number" => Value::from(0),
        "true or false" => Value::Bool(false),
        "an object" => Value::Object(Map::new()),
        "an array" => Value::Array(vec![]),
        _ => return None,
    })
}

/// Whether `value` is what `found` (our wording) names.
fn is_found(value: &Value, found: &str) -> bool {
    match value {
        Value::String(_) => found == "a string",
        Value::Number(_) => found == "a number",
        Value::Bool(_) => found == "true/false",
        Value::Array(_) => found == "an array",
        Value::Object(_) => found == "an object",
        Value::Null => found == "null",
    }
}

/// The value at `path` (`fields[0].options[1]`) of `root`, mutably.
fn at_mut<'a>(root: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut v = root;
    for step in path {
        v = match step {
            Step::Key(k) => v.as_object_mut()?.get_mut(k)?,
            Step::Index(i) => v.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(v)
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) => out = super::join(&out, k),
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            steps.push(Step::Key(key.to_owned()));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let (n, after) = r.split_once(']')?;
            steps.push(Step::Index(n.parse().ok()?));
            rest = after;
        }
    }
    Some(steps)
}

/// Every leaf (and compound) under `v`, with its path relative to `v`, depth first.
fn candidates(v: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                prefix.push(Step::Key(k.clone()));
                out.push(prefix.clone());
                candidates(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                prefix.push(Step::Index(i));
                out.push(prefix.clone());
                candidates(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

/// For a type error (`expected X, found Y`) reported at `error.path` of `root` although it
/// belongs to a key under it (serde buffers flattened and internally tagged content and loses
/// the path), finds that key: the first value under the path that is a Y and whose
/// replacement by an X makes the error go away without a type error in its place. `parse`
/// re-runs the deserialization. Returns the error with the longer path, or it unchanged.
pub(crate) fn locate(
    root: &Value,
    error: super::JsonError,
    parse: impl Fn(Value) -> Result<(), super::JsonError>,
) -> super::JsonError {
    let Some(rest) = error.message.strip_prefix("expected ") else {
        return error;
    };
    let Some((expected, found)) = rest.split_once(", found ") else {
        return error;
    };
    let (Some(base), Some(replacement)) = (parse_path(&error.path), sample(expected)) else {
        return error;
    };
    let mut root_copy = root.clone();
    let Some(under) = at_mut(&mut root_copy, &base) else {
        return error;
    };
    let mut found_paths = Vec::new();
    candidates(under, &mut Vec::new(), &mut found_paths);
    for rel in found_paths {
        let full: Vec<Step> = base.iter().cloned().chain(rel).collect();
        let mut trial = root.clone();
        match at_mut(&mut trial, &full) {
            Some(v) if is_found(v, found) => *v = replacement.clone(),
            _ => continue,
        }
        let gone = match parse(trial) {
            Ok(()) => true,
            Err(e) => !(e.message.starts_with("expected ") && e.message.contains(", found ")),
        };
        if gone {
            return super::JsonError {
                path: render(&full),
                ..error
            };
        }
    }
    error
}
