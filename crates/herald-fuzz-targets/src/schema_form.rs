//! `schema_form`: a flat JSON Schema form (`schema` in docs/content.md) and answers to it.
//!
//! Input: the schema JSON, optionally followed by `NUL` and the answer's `values` object. The
//! schema becomes the `schema` of a message titled "Form".
//!
//! Properties, beyond the [`content`](crate::content) ones:
//! - a valid schema converts to one field per property, in order, named after it, required
//!   exactly when `required` lists it, and round-trips through its JSON with the order kept;
//! - each field's `default` is never refused as that field's answer (file fields aside:
//!   their answer must name an upload, which a default cannot);
//! - an accepted answer is valid under the JSON Schema itself, checked here independently:
//!   `type`, `enum`, `items.enum` with distinct items, `minimum`/`maximum` (exact for
//!   integers), `minLength`/`maxLength` (in characters), `required`.

use herald_protocol::content::{AnswerContent, FormSchema, MessageContent};
use serde_json::{Map, Value};

use crate::content::check_content;
use crate::json::{assert_round_trip, cmp_numbers};
use crate::split_nul;

/// The `schema_form` target.
pub fn schema_form(data: &[u8]) {
    let (schema, values) = split_nul(data);
    let Ok(schema) = serde_json::from_slice::<FormSchema>(schema) else {
        return;
    };
    let answer = values
        .and_then(|v| serde_json::from_slice::<Map<String, Value>>(v).ok())
        .map(|values| AnswerContent {
            action_id: None,
            values,
            attachments: vec![],
        });
    let content = MessageContent {
        title: "Form".into(),
        schema: Some(schema.clone()),
        ..MessageContent::default()
    };
    let fields = schema.to_fields();
    check_content(&content, answer.as_ref());
    if content.validate().is_err() {
        if let Some(answer) = &answer {
            let _ = content.validate_answer(answer);
        }
        return;
    }

    assert_round_trip("a valid schema", &schema);
    let required = required(&schema);
    assert_eq!(
        fields.len(),
        schema.properties.len(),
        "one field per property"
    );
    for (field, (name, _)) in fields.iter().zip(&schema.properties) {
        assert_eq!(&field.id, name, "fields follow the property order");
        assert_eq!(field.required, required.contains(&name.as_str()));
    }
    for field in fields.iter().filter(|f| !f.kind.is_file()) {
        let Some(default) = &field.default else {
            continue;
        };
        let only_default = AnswerContent {
            action_id: None,
            values: Map::from_iter([(field.id.clone(), default.clone())]),
            attachments: vec![],
        };
        if let Err(violations) = content.validate_answer(&only_default) {
            let own: Vec<_> = violations.iter().filter(|v| v.path == field.id).collect();
            assert!(
                own.is_empty(),
                "the default of {:?} is refused: {own:?}",
                field.id
            );
        }
    }
    if let Some(answer) = &answer {
        if content.validate_answer(answer).is_ok() {
            check_against_schema(&schema, &answer.values);
        }
    }
}

fn required(schema: &FormSchema) -> Vec<&str> {
    match schema.keywords.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// Asserts that `values`, which the form accepted, satisfy the schema's own keywords.
fn check_against_schema(schema: &FormSchema, values: &Map<String, Value>) {
    for name in required(schema) {
        let value = values.get(name).unwrap_or(&Value::Null);
        assert!(!value.is_null(), "accepted without required {name:?}");
    }
    for (name, value) in values {
        let Some((_, property)) = schema.properties.iter().find(|(p, _)| p == name) else {
            panic!("accepted a value for unknown property {name:?}");
        };
        if !value.is_null() {
            check_value(name, property, value);
        }
    }
}

fn check_value(name: &str, property: &Value, value: &Value) {
    let get = |key: &str| property.get(key);
    let ty = get("type").and_then(Value::as_str).unwrap_or_default();
    let file = matches!(
        get("x-herald-type").and_then(Value::as_str),
        Some("file" | "secret-file")
    );
    match ty {
        "string" if file => assert!(value.is_object(), "{name}: a file answer is an object"),
        "string" => {
            let s = value.as_str();
            let s = s.unwrap_or_else(|| panic!("{name}: accepted {value} for a string"));
            let n = s.chars().count() as u64;
            if let Some(min) = get("minLength").and_then(Value::as_u64) {
                assert!(n >= min, "{name}: accepted {n} characters, minLength {min}");
            }
            if let Some(max) = get("maxLength").and_then(Value::as_u64) {
                assert!(n <= max, "{name}: accepted {n} characters, maxLength {max}");
            }
            if let Some(Value::Array(options)) = get("enum") {
                assert!(options.contains(value), "{name}: {value} is not in enum");
            }
        }
        "number" | "integer" => {
            let Value::Number(n) = value else {
                panic!("{name}: accepted {value} for a {ty}");
            };
            if ty == "integer" {
                let whole =
                    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
                assert!(whole, "{name}: accepted {n} for an integer");
            }
            if let Some(Value::Number(min)) = get("minimum") {
                let below = cmp_numbers(n, min) == Some(std::cmp::Ordering::Less);
                assert!(!below, "{name}: accepted {n} below minimum {min}");
            }
            if let Some(Value::Number(max)) = get("maximum") {
                let above = cmp_numbers(n, max) == Some(std::cmp::Ordering::Greater);
                assert!(!above, "{name}: accepted {n} above maximum {max}");
            }
        }
        "boolean" => assert!(value.is_boolean(), "{name}: accepted {value} for a boolean"),
        "array" => {
            let items = value.as_array();
            let items = items.unwrap_or_else(|| panic!("{name}: accepted {value} for an array"));
            let options = property.pointer("/items/enum").and_then(Value::as_array);
            let options = options.unwrap_or_else(|| panic!("{name}: valid arrays have items.enum"));
            for (i, item) in items.iter().enumerate() {
                assert!(
                    options.contains(item),
                    "{name}: {item} is not in items.enum"
                );
                assert!(!items[..i].contains(item), "{name}: {item} chosen twice");
            }
        }
        other => panic!("{name}: a valid schema has no property of type {other:?}"),
    }
}
