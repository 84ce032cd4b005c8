//! `schema`: a flat JSON Schema object in place of `fields`, converted into fields.
//!
//! Accepted, top level: `type: "object"` (required), `properties` (1–[`MAX_FIELDS`], order
//! kept), `required`, `title`, `description`, `$schema`, `additionalProperties: false`.
//! Accepted, per property: `type` (`string`, `number`, `integer`, `boolean`, or `array` of
//! string enums → multiselect), `title` → label, `description` → help, `default`, `enum`
//! (strings → choice), `minimum`/`maximum`, `minLength`/`maxLength`, `format: date | date-time`,
//! `x-herald-type: textarea | secret | file | secret-file`.
//! Everything else — nested objects, `pattern`, any unknown keyword — is a violation naming the
//! keyword's path (`schema.properties.notes.pattern`): a form never silently drops a
//! constraint the sender asked for.

use std::collections::HashSet;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::check::{check_field, Check, Source};
use super::fields::Field;
use super::limits::*;
use super::property::property;

/// A flat object schema as written: `properties` in the sender's order, every other top-level
/// keyword as is (checked by validation, never acted on silently).
///
/// Serializes as `{"type", "properties", ...other keywords}`. Parse from JSON text (not from a
/// `serde_json::Value`, whose maps are sorted) to keep the property order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FormSchema {
    /// Property name → property schema, in order.
    pub properties: Vec<(String, Value)>,
    /// The other top-level keywords (`type`, `required`, ...).
    pub keywords: Map<String, Value>,
}

const TOP_LEVEL: &[&str] = &[
    "type",
    "properties",
    "required",
    "title",
    "description",
    "$schema",
    "additionalProperties",
];

impl FormSchema {
    /// Names listed in `required` (strings only).
    fn required(&self) -> Vec<&str> {
        match self.keywords.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        }
    }

    /// The fields this schema describes, in property order. Best effort: a property that
    /// cannot be converted is left out; [`check`](Self::check) names what is wrong, so use
    /// this on content that passed validation.
    pub fn to_fields(&self) -> Vec<Field> {
        self.convert(&mut Check::default())
            .into_iter()
            .map(|(_, f)| f)
            .collect()
    }

    fn convert(&self, c: &mut Check) -> Vec<(usize, Field)> {
        let required = self.required();
        self.properties
            .iter()
            .enumerate()
            .filter_map(|(i, (name, schema))| {
                property(c, name, schema, required.contains(&name.as_str())).map(|f| (i, f))
            })
            .collect()
    }

    /// Checks the schema and the fields it converts to; paths start with `schema`.
    pub(crate) fn check(&self, c: &mut Check) {
        for (key, value) in &self.keywords {
            let path = format!("schema.{key}");
            match key.as_str() {
                "type" if value.as_str() != Some("object") => c.fail(path, "must be \"object\""),
                "title" | "description" | "$schema" if !value.is_string() => {
                    c.fail(path, "must be a string")
                }
                "additionalProperties" if value.as_bool() != Some(false) => c.fail(
                    path,
                    "only false is supported: answers never carry unknown fields",
                ),
                "required" => self.check_required(c, value),
                k if !TOP_LEVEL.contains(&k) => {
                    c.fail(path, format!("unsupported keyword {key:?}"))
                }
                _ => {}
            }
        }
        if !self.keywords.contains_key("type") {
            c.fail("schema.type", "must be \"object\"");
        }
        if self.properties.is_empty() || self.properties.len() > MAX_FIELDS {
            c.fail(
                "schema.properties",
                format!("must have 1–{MAX_FIELDS} properties"),
            );
        }
        let mut names = HashSet::new();
        for (name, _) in &self.properties {
            if !names.insert(name.as_str()) {
                c.fail(format!("schema.properties.{name}"), "duplicate property");
            }
        }
        for (i, field) in self.convert(c) {
            let array = self.properties[i].1.get("type") == Some(&Value::from("array"));
            let name = self.properties[i].0.as_str();
            check_field(c, Source::Schema { name, array }, &field);
        }
    }

    fn check_required(&self, c: &mut Check, value: &Value) {
        let Value::Array(names) = value else {
            c.fail("schema.required", "must be an array of property names");
            return;
        };
        let mut seen = std::collections::HashSet::new();
        for (k, name) in names.iter().enumerate() {
            let known = name
                .as_str()
                .is_some_and(|n| self.properties.iter().any(|(p, _)| p == n));
            if !known {
                c.fail(format!("schema.required[{k}]"), "no such property");
            } else if !seen.insert(name.as_str()) {
                c.fail(format!("schema.required[{k}]"), "listed twice");
            }
        }
    }
}

impl Serialize for FormSchema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        if let Some(ty) = self.keywords.get("type") {
            map.serialize_entry("type", ty)?;
        }
        map.serialize_entry("properties", &Ordered(&self.properties))?;
        for (k, v) in self.keywords.iter().filter(|(k, _)| *k != "type") {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Serializes entries as a JSON object in their order.
struct Ordered<'a>(&'a [(String, Value)]);

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Reads a JSON object into entries, keeping order and duplicates.
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of property schemas")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for FormSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FormSchema;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON Schema object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<FormSchema, A::Error> {
                let mut schema = FormSchema::default();
                let mut seen_properties = false;
                while let Some(key) = m.next_key::<String>()? {
                    if key == "properties" {
                        if seen_properties {
                            return Err(serde::de::Error::duplicate_field("properties"));
                        }
                        seen_properties = true;
                        schema.properties = m.next_value::<Entries>()?.0;
                    } else {
                        let value = m.next_value::<Value>()?;
                        schema.keywords.insert(key, value);
                    }
                }
                Ok(schema)
            }
        }
        d.deserialize_map(V)
    }
}
