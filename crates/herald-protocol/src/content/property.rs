//! One `schema` property → one field, refusing every keyword Herald would not enforce.

use serde_json::{Map, Number, Value};

use super::check::Check;
use super::fields::{Bounds, ChoiceOption, Field, FieldKind};

/// Keywords every property type accepts.
const COMMON: &[&str] = &["type", "title", "description", "default"];

/// Keywords accepted per property `type`, beyond [`COMMON`].
fn keywords_for(ty: &str) -> Option<&'static [&'static str]> {
    Some(match ty {
        "string" => &["enum", "minLength", "maxLength", "format", "x-herald-type"],
        "number" | "integer" => &["minimum", "maximum"],
        "boolean" => &[],
        "array" => &["items"],
        _ => return None,
    })
}

/// Converts property `name`; records every violation under `schema.properties.<name>` and
/// returns `None` when no field can be built (an unusable `type`).
pub(crate) fn property(c: &mut Check, name: &str, schema: &Value, required: bool) -> Option<Field> {
    let base = format!("schema.properties.{name}");
    let Value::Object(p) = schema else {
        c.fail(base, "must be an object schema");
        return None;
    };
    let at = |key: &str| format!("{base}.{key}");
    let ty = match p.get("type").and_then(Value::as_str) {
        Some("object") => {
            c.fail(at("type"), "nested objects are not supported");
            return None;
        }
        Some(t) if keywords_for(t).is_some() => t,
        _ => {
            // Name what the sender wrote ($ref, oneOf…) before blaming the missing type.
            let mut named = false;
            for key in p.keys() {
                let known = key == "type"
                    || COMMON.contains(&key.as_str())
                    || ["string", "number", "integer", "boolean", "array"]
                        .iter()
                        .any(|t| keywords_for(t).unwrap_or_default().contains(&key.as_str()));
                if !known {
                    c.fail(at(key), format!("unsupported keyword {key:?}"));
                    named = true;
                }
            }
            if !named {
                c.fail(
                    at("type"),
                    "must be one of string, number, integer, boolean, array",
                );
            }
            return None;
        }
    };
    let allowed = keywords_for(ty).unwrap_or_default();
    for key in p.keys() {
        if COMMON.contains(&key.as_str()) || allowed.contains(&key.as_str()) {
            continue;
        }
        let why = if key == "pattern" {
            "pattern is not supported: Herald cannot enforce it".to_owned()
        } else if ["string", "number", "array"]
            .iter()
            .any(|t| keywords_for(t).unwrap_or_default().contains(&key.as_str()))
        {
            format!("{key} does not apply to a {ty} property")
        } else {
            format!("unsupported keyword {key:?}")
        };
        c.fail(at(key), why);
    }
    let text = |c: &mut Check, key: &str| match p.get(key) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            c.fail(at(key), "must be a string");
            None
        }
    };
    let label = text(c, "title").unwrap_or_else(|| name.to_owned());
    let help = text(c, "description");
    let kind = match ty {
        "number" => FieldKind::Number,
        "integer" => FieldKind::Integer,
        "boolean" => FieldKind::Boolean,
        "array" => FieldKind::Multiselect {
            options: items(c, &base, p.get("items")),
            other: false,
        },
        _ => string_kind(c, &base, p),
    };
    let bounds = Bounds {
        minimum: number(c, &at("minimum"), p.get("minimum")),
        maximum: number(c, &at("maximum"), p.get("maximum")),
        min_length: length(c, &at("minLength"), p.get("minLength")),
        max_length: length(c, &at("maxLength"), p.get("maxLength")),
    };
    Some(Field {
        id: name.to_owned(),
        label,
        kind,
        required,
        help,
        default: p.get("default").cloned(),
        nullable: false,
        header: None,
        bounds,
    })
}

/// The kind of a `type: string` property: enum → choice, `format` → date or date-time,
/// `x-herald-type` → textarea, secret, file or secret-file, otherwise text. Only one of the
/// three may be given.
fn string_kind(c: &mut Check, base: &str, p: &Map<String, Value>) -> FieldKind {
    let mut given = ["enum", "format", "x-herald-type"]
        .into_iter()
        .filter(|k| p.contains_key(*k));
    let first = given.next();
    for extra in given {
        c.fail(
            format!("{base}.{extra}"),
            format!("cannot be combined with {}", first.unwrap_or_default()),
        );
    }
    match first {
        Some("enum") => FieldKind::Choice {
            options: options(c, &format!("{base}.enum"), p.get("enum")),
            other: false,
        },
        Some("format") => match p.get("format").and_then(Value::as_str) {
            Some("date") => FieldKind::Date,
            Some("date-time") => FieldKind::DateTime,
            _ => {
                c.fail(format!("{base}.format"), "must be date or date-time");
                FieldKind::Text
            }
        },
        Some(_) => match p.get("x-herald-type").and_then(Value::as_str) {
            Some("textarea") => FieldKind::Textarea,
            Some("secret") => FieldKind::Secret,
            Some("file") => FieldKind::File { secret: false },
            Some("secret-file") => FieldKind::SecretFile,
            _ => {
                c.fail(
                    format!("{base}.x-herald-type"),
                    "must be textarea, secret, file or secret-file",
                );
                FieldKind::Text
            }
        },
        None => FieldKind::Text,
    }
}

/// `items` of a string-enum array: `{type: "string", enum: [...]}` and nothing else.
fn items(c: &mut Check, base: &str, items: Option<&Value>) -> Vec<ChoiceOption> {
    let path = format!("{base}.items");
    let Some(Value::Object(items)) = items else {
        c.fail(path, "must be {\"type\": \"string\", \"enum\": [...]}");
        return vec![];
    };
    for key in items
        .keys()
        .filter(|k| !matches!(k.as_str(), "type" | "enum"))
    {
        let why = if matches!(key.as_str(), "properties" | "items") {
            "nested structures are not supported".to_owned()
        } else {
            format!("unsupported keyword {key:?} in items")
        };
        c.fail(format!("{path}.{key}"), why);
    }
    if items.get("type").and_then(Value::as_str) != Some("string") {
        c.fail(
            format!("{path}.type"),
            "must be \"string\": only arrays of string enums are supported",
        );
    }
    match items.get("enum") {
        None => {
            c.fail(format!("{path}.enum"), "is required");
            vec![]
        }
        e => options(c, &format!("{path}.enum"), e),
    }
}

/// An `enum` of strings → options whose value and label are the string.
fn options(c: &mut Check, path: &str, values: Option<&Value>) -> Vec<ChoiceOption> {
    let Some(Value::Array(values)) = values else {
        c.fail(path, "must be an array of strings");
        return vec![];
    };
    let mut out = Vec::new();
    for (j, v) in values.iter().enumerate() {
        match v {
            Value::String(s) => out.push(ChoiceOption {
                value: s.clone(),
                label: s.clone(),
                description: None,
                preview: None,
            }),
            _ => c.fail(format!("{path}[{j}]"), "must be a string"),
        }
    }
    out
}

fn number(c: &mut Check, path: &str, v: Option<&Value>) -> Option<Number> {
    match v? {
        Value::Number(n) => Some(n.clone()),
        _ => {
            c.fail(path, "must be a number");
            None
        }
    }
}

fn length(c: &mut Check, path: &str, v: Option<&Value>) -> Option<u32> {
    match v?.as_u64().map(u32::try_from) {
        Some(Ok(n)) => Some(n),
        _ => {
            c.fail(path, "must be a whole number ≥ 0");
            None
        }
    }
}
