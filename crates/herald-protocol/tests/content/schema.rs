//! `schema`: conversion into fields (order kept) and every refused keyword, named by path.

use serde_json::{json, Value};

use herald_protocol::content::*;

fn parse(text: &str) -> MessageContent {
    serde_json::from_str(text).expect("test content parses")
}

fn with_schema(schema: Value) -> MessageContent {
    // Through text, so `properties` keeps the order the test wrote.
    parse(&json!({"title": "T", "schema": schema}).to_string())
}

fn paths(r: Result<(), Vec<Violation>>) -> Vec<String> {
    r.expect_err("expected violations")
        .into_iter()
        .map(|v| v.path)
        .collect()
}

#[test]
fn converts_every_supported_property_in_order() {
    let c = parse(
        r#"{"title": "Configure the release", "schema": {
            "type": "object",
            "required": ["channel", "count"],
            "properties": {
                "zeta": {"type": "string", "title": "Zeta", "description": "Last letter first",
                         "minLength": 1, "maxLength": 20, "default": "z"},
                "channel": {"type": "string", "enum": ["beta", "stable"]},
                "notes": {"type": "string", "x-herald-type": "textarea"},
                "token": {"type": "string", "x-herald-type": "secret"},
                "upload": {"type": "string", "x-herald-type": "file"},
                "key": {"type": "string", "x-herald-type": "secret-file"},
                "count": {"type": "integer", "minimum": 1, "maximum": 9},
                "ratio": {"type": "number", "maximum": 0.5},
                "dry": {"type": "boolean", "default": true},
                "day": {"type": "string", "format": "date"},
                "at": {"type": "string", "format": "date-time"},
                "platforms": {"type": "array", "items": {"type": "string", "enum": ["web", "mac"]}}
            }}}"#,
    );
    assert_eq!(c.validate(), Ok(()), "a valid schema");
    let fields = c.effective_fields();
    let ids: Vec<&str> = fields.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "zeta",
            "channel",
            "notes",
            "token",
            "upload",
            "key",
            "count",
            "ratio",
            "dry",
            "day",
            "at",
            "platforms"
        ],
        "property order is kept"
    );
    let types: Vec<&str> = fields.iter().map(|f| f.kind.type_name()).collect();
    assert_eq!(
        types,
        [
            "text",
            "choice",
            "textarea",
            "secret",
            "file",
            "secret-file",
            "integer",
            "number",
            "boolean",
            "date",
            "date-time",
            "multiselect"
        ],
        "each property maps to its field type"
    );
    let zeta = &fields[0];
    assert_eq!(
        (zeta.label.as_str(), zeta.help.as_deref()),
        ("Zeta", Some("Last letter first")),
        "title → label, description → help"
    );
    assert_eq!(
        (zeta.bounds.min_length, zeta.bounds.max_length),
        (Some(1), Some(20)),
        "length bounds kept"
    );
    assert_eq!(zeta.default, Some(json!("z")), "default kept");
    assert_eq!(
        fields[1].label, "channel",
        "label falls back to the property name"
    );
    assert!(
        fields[1].required && fields[6].required && !fields[0].required,
        "required list"
    );
    assert_eq!(
        fields[6].bounds.maximum,
        Some(9.into()),
        "numeric bounds kept"
    );
    assert!(
        matches!(&fields[11].kind, FieldKind::Multiselect { options, other: false } if options.len() == 2 && options[0].value == "web"),
        "string-enum array → multiselect"
    );
    assert!(c.expects_answer(), "a schema form asks for an answer");
}

#[test]
fn refused_property_keywords_are_named() {
    let cases: &[(&str, Value, &str)] = &[
        (
            "pattern",
            json!({"type": "string", "pattern": "^a"}),
            "pattern",
        ),
        (
            "unknown keyword",
            json!({"type": "string", "placeholder": "x"}),
            "placeholder",
        ),
        (
            "nested object",
            json!({"type": "object", "properties": {}}),
            "type",
        ),
        (
            "properties on a string",
            json!({"type": "string", "properties": {}}),
            "properties",
        ),
        ("missing type", json!({"title": "T"}), "type"),
        ("union type", json!({"type": ["string", "null"]}), "type"),
        ("unknown type", json!({"type": "null"}), "type"),
        (
            "minimum on a string",
            json!({"type": "string", "minimum": 1}),
            "minimum",
        ),
        (
            "maxLength on a number",
            json!({"type": "number", "maxLength": 3}),
            "maxLength",
        ),
        (
            "enum on an integer",
            json!({"type": "integer", "enum": [1, 2]}),
            "enum",
        ),
        (
            "exclusiveMinimum",
            json!({"type": "number", "exclusiveMinimum": 0}),
            "exclusiveMinimum",
        ),
        (
            "multipleOf",
            json!({"type": "integer", "multipleOf": 2}),
            "multipleOf",
        ),
        ("const", json!({"type": "string", "const": "a"}), "const"),
        (
            "oneOf",
            json!({"type": "string", "oneOf": [{"const": "a"}]}),
            "oneOf",
        ),
        (
            "enumNames",
            json!({"type": "string", "enum": ["a"], "enumNames": ["A"]}),
            "enumNames",
        ),
        (
            "$ref",
            json!({"type": "string", "$ref": "#/defs/x"}),
            "$ref",
        ),
        (
            "format email",
            json!({"type": "string", "format": "email"}),
            "format",
        ),
        (
            "format on a number",
            json!({"type": "number", "format": "date"}),
            "format",
        ),
        (
            "unknown x-herald-type",
            json!({"type": "string", "x-herald-type": "password"}),
            "x-herald-type",
        ),
        (
            "enum with format",
            json!({"type": "string", "enum": ["a"], "format": "date"}),
            "format",
        ),
        (
            "format with x-herald-type",
            json!({"type": "string", "format": "date", "x-herald-type": "secret"}),
            "x-herald-type",
        ),
        (
            "minLength on a date",
            json!({"type": "string", "format": "date", "minLength": 1}),
            "minLength",
        ),
        (
            "maxLength on a file",
            json!({"type": "string", "x-herald-type": "file", "maxLength": 9}),
            "maxLength",
        ),
        (
            "minLength on an enum",
            json!({"type": "string", "enum": ["a"], "minLength": 1}),
            "minLength",
        ),
        (
            "negative minLength",
            json!({"type": "string", "minLength": -1}),
            "minLength",
        ),
        (
            "string minimum",
            json!({"type": "number", "minimum": "1"}),
            "minimum",
        ),
        (
            "fractional integer bound",
            json!({"type": "integer", "maximum": 1.5}),
            "maximum",
        ),
        (
            "inverted bounds",
            json!({"type": "number", "minimum": 2, "maximum": 1}),
            "maximum",
        ),
        (
            "inverted lengths",
            json!({"type": "string", "minLength": 3, "maxLength": 2}),
            "maxLength",
        ),
        (
            "non-string title",
            json!({"type": "string", "title": 5}),
            "title",
        ),
        (
            "non-string enum item",
            json!({"type": "string", "enum": ["a", 2]}),
            "enum[1]",
        ),
        ("empty enum", json!({"type": "string", "enum": []}), "enum"),
        (
            "duplicate enum",
            json!({"type": "string", "enum": ["a", "a"]}),
            "enum[1]",
        ),
        (
            "invalid default",
            json!({"type": "integer", "default": "three"}),
            "default",
        ),
        (
            "default outside enum",
            json!({"type": "string", "enum": ["a"], "default": "b"}),
            "default",
        ),
        (
            "items on a string",
            json!({"type": "string", "items": {}}),
            "items",
        ),
        ("array without items", json!({"type": "array"}), "items"),
        (
            "array of numbers",
            json!({"type": "array", "items": {"type": "number", "enum": [1]}}),
            "items.type",
        ),
        (
            "array without enum",
            json!({"type": "array", "items": {"type": "string"}}),
            "items.enum",
        ),
        (
            "array items pattern",
            json!({"type": "array", "items": {"type": "string", "enum": ["a"], "pattern": "a"}}),
            "items.pattern",
        ),
        (
            "array of objects",
            json!({"type": "array", "items": {"type": "object", "properties": {}, "enum": ["a"]}}),
            "items.properties",
        ),
        (
            "minItems",
            json!({"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["a"]}}),
            "minItems",
        ),
        (
            "uniqueItems",
            json!({"type": "array", "uniqueItems": true, "items": {"type": "string", "enum": ["a"]}}),
            "uniqueItems",
        ),
        ("not an object", json!("string"), ""),
    ];
    for (what, property, key) in cases {
        let c = with_schema(json!({"type": "object", "properties": {"notes": property}}));
        let expected = if key.is_empty() {
            "schema.properties.notes".to_owned()
        } else {
            format!("schema.properties.notes.{key}")
        };
        let got = paths(c.validate());
        assert!(
            got.contains(&expected),
            "{what}: expected {expected} in {got:?}"
        );
    }
}

#[test]
fn refused_top_level_keywords_are_named() {
    let prop = json!({"a": {"type": "string"}});
    let cases: &[(&str, Value, &str)] = &[
        ("missing type", json!({"properties": prop}), "schema.type"),
        (
            "array type",
            json!({"type": "array", "properties": prop}),
            "schema.type",
        ),
        (
            "additionalProperties true",
            json!({"type": "object", "properties": prop, "additionalProperties": true}),
            "schema.additionalProperties",
        ),
        (
            "definitions",
            json!({"type": "object", "properties": prop, "definitions": {}}),
            "schema.definitions",
        ),
        (
            "allOf",
            json!({"type": "object", "properties": prop, "allOf": []}),
            "schema.allOf",
        ),
        (
            "unknown required name",
            json!({"type": "object", "properties": prop, "required": ["b"]}),
            "schema.required[0]",
        ),
        (
            "required not an array",
            json!({"type": "object", "properties": prop, "required": "a"}),
            "schema.required",
        ),
        (
            "no properties",
            json!({"type": "object", "properties": {}}),
            "schema.properties",
        ),
        (
            "bad property name",
            json!({"type": "object", "properties": {"a b": {"type": "string"}}}),
            "schema.properties.a b",
        ),
    ];
    for (what, schema, path) in cases {
        let got = paths(with_schema(schema.clone()).validate());
        assert_eq!(got, [*path], "{what}");
    }
    let ok = with_schema(
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "title": "Release", "description": "d", "additionalProperties": false, "properties": prop}),
    );
    assert_eq!(
        ok.validate(),
        Ok(()),
        "annotations and additionalProperties: false are accepted"
    );
}

#[test]
fn duplicate_property_names_are_refused() {
    let c = parse(
        r#"{"title": "T", "schema": {"type": "object", "properties": {"a": {"type": "string"}, "a": {"type": "number"}}}}"#,
    );
    assert_eq!(
        paths(c.validate()),
        ["schema.properties.a"],
        "a duplicate key is not silently merged"
    );
}

#[test]
fn schema_answers_are_checked_against_the_converted_fields() {
    let c = with_schema(
        json!({"type": "object", "required": ["channel"], "properties": {
        "channel": {"type": "string", "enum": ["beta", "stable"]},
        "count": {"type": "integer", "maximum": 3}}}),
    );
    let answer = |v: Value| AnswerContent {
        action_id: None,
        values: v.as_object().unwrap().clone(),
        attachments: vec![],
    };
    assert!(
        c.validate_answer(&answer(json!({"channel": "beta", "count": 3})))
            .is_ok(),
        "valid"
    );
    assert_eq!(
        paths(c.validate_answer(&answer(json!({"count": 4})))),
        ["channel", "count"],
        "required and bounds"
    );
}

#[test]
fn composition_keywords_are_named_even_without_a_type() {
    for (keyword, value) in [
        ("$ref", json!("#/defs/x")),
        ("oneOf", json!([{"type": "string"}])),
        ("anyOf", json!([])),
    ] {
        let mut prop = serde_json::Map::new();
        prop.insert(keyword.to_owned(), value);
        let c = with_schema(json!({"type": "object", "properties": {"a": prop}}));
        assert!(
            c.expects_answer(),
            "a schema asks for an answer even when broken, so it is validated"
        );
        assert_eq!(
            paths(c.validate()),
            [format!("schema.properties.a.{keyword}")],
            "{keyword} is named, not the missing type"
        );
    }
    let c = with_schema(json!({"type": "object", "properties": {"a": {"title": "A"}}}));
    assert_eq!(
        paths(c.validate()),
        ["schema.properties.a.type"],
        "no type and nothing else: the type is named"
    );
}

#[test]
fn a_property_required_twice_is_refused() {
    let c = with_schema(
        json!({"type": "object", "required": ["a", "a"], "properties": {"a": {"type": "string"}}}),
    );
    assert_eq!(
        paths(c.validate()),
        ["schema.required[1]"],
        "the repeat is named"
    );
}
