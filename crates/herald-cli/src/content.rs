//! Builds message content from command-line flags (docs/cli.md). Everything is validated by
//! herald-protocol before sealing; the parsers here only turn flags into the content model and
//! name the flag when its shape is wrong.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use herald_protocol::content::{
    Action, Block, ChoiceOption, Field, FieldKind, FormSchema, MessageContent, Question,
    QuestionOption, TableBlock, TextBlock,
};

use crate::args::ContentArgs;

/// Largest input file read (bodies, blocks, JSON content): 4 bytes per character of the
/// largest content part plus room for JSON, so a mistaken `/dev/zero` fails fast.
const MAX_INPUT_BYTES: u64 = 4 * 1024 * 1024;

fn read_text(path: &Path) -> Result<String> {
    let name = path.display();
    let reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("reading {name}"))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {name}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        bail!(
            "{name} is larger than {} MiB",
            MAX_INPUT_BYTES / (1024 * 1024)
        );
    }
    String::from_utf8(bytes).with_context(|| format!("{name} is not UTF-8 text"))
}

/// The content the shared flags describe: `--json` first, then title, body, blocks and
/// `--requires-review` on top.
pub fn base(args: &ContentArgs) -> Result<MessageContent> {
    let mut content = match &args.json {
        Some(path) => strict_content(&read_text(path)?)
            .with_context(|| format!("--json {}", path.display()))?,
        None => MessageContent::default(),
    };
    match (&args.title, &args.json) {
        (Some(t), _) => content.title = t.clone(),
        (None, Some(_)) => {}
        (None, None) => bail!("--title is required (or give the whole content with --json FILE)"),
    }
    match (&args.body, &args.body_file) {
        (Some(b), _) => content.body = b.clone(),
        (None, Some(p)) => content.body = read_text(p)?,
        (None, None) => {}
    }
    // Image blocks are made once their file is uploaded (crate::attach).
    for spec in args
        .blocks
        .iter()
        .filter(|s| !crate::attach::is_image_spec(s))
    {
        content.blocks.push(block(spec)?);
    }
    if args.requires_review {
        content.requires_review = true;
    }
    Ok(content)
}

/// Parses content JSON, refusing keys Herald does not know: a misspelt `requird` or
/// `maximun` would otherwise drop a constraint without a word.
fn strict_content(text: &str) -> Result<MessageContent> {
    let mut unknown = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let content: MessageContent =
        serde_ignored::deserialize(&mut de, |path| unknown.push(path.to_string()))
            .context("not Herald message content")?;
    de.end().context("not Herald message content")?;
    // Fields and blocks are flattened/tagged, which hides their unknown keys from
    // serde_ignored: compare each with its re-serialized self instead.
    let input: serde_json::Value = serde_json::from_str(text)?;
    let parsed = serde_json::to_value(&content)?;
    for list in ["fields", "blocks"] {
        let (Some(given), Some(kept)) = (input[list].as_array(), parsed[list].as_array()) else {
            continue;
        };
        for (i, (g, k)) in given.iter().zip(kept).enumerate() {
            let Some(g) = g.as_object() else { continue };
            for (key, value) in g {
                let dropped = k.get(key).is_none();
                let is_default = matches!(
                    value,
                    serde_json::Value::Null | serde_json::Value::Bool(false)
                ) || value.as_array().is_some_and(Vec::is_empty);
                if dropped && !is_default {
                    unknown.push(format!("{list}.{i}.{key}"));
                }
            }
        }
    }
    if !unknown.is_empty() {
        bail!(
            "unknown key(s): {} (see docs/content.md)",
            unknown.join(", ")
        );
    }
    Ok(content)
}

/// `ID:LABEL` → an action whose answer is `{}`.
pub fn action(spec: &str) -> Result<Action> {
    let Some((id, label)) = spec.split_once(':') else {
        bail!("--action {spec:?}: expected ID:LABEL, e.g. approve:Approve");
    };
    Ok(Action {
        id: id.trim().to_owned(),
        label: label.trim().to_owned(),
        values: Default::default(),
    })
}

/// `ID[!]:TYPE[+other][:LABEL[:OPT1,OPT2]]` → a field.
pub fn field(spec: &str) -> Result<Field> {
    let mut parts = spec.splitn(4, ':');
    let raw_id = parts.next().unwrap_or_default().trim();
    let Some(kind) = parts.next() else {
        bail!("--field {spec:?}: expected ID:TYPE[:LABEL[:OPTIONS]]");
    };
    let (id, required) = match raw_id.strip_suffix('!') {
        Some(id) => (id, true),
        None => (raw_id, false),
    };
    let label = parts
        .next()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .unwrap_or(id)
        .to_owned();
    let options: Vec<ChoiceOption> = parts
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|o| ChoiceOption {
            value: o.to_owned(),
            label: o.to_owned(),
            description: None,
            preview: None,
        })
        .collect();
    let (kind, other) = match kind.trim().strip_suffix("+other") {
        Some(k) => (k, true),
        None => (kind.trim(), false),
    };
    let kind = match kind {
        "text" => FieldKind::Text,
        "textarea" => FieldKind::Textarea,
        "number" => FieldKind::Number,
        "integer" => FieldKind::Integer,
        "boolean" => FieldKind::Boolean,
        "date" => FieldKind::Date,
        "date-time" => FieldKind::DateTime,
        "choice" => FieldKind::Choice { options, other },
        "multiselect" => FieldKind::Multiselect { options, other },
        "secret" => FieldKind::Secret,
        "file" => FieldKind::File { secret: false },
        "secret-file" => FieldKind::SecretFile,
        other => bail!(
            "--field {spec:?}: unknown type {other:?} (text, textarea, number, integer, boolean, date, date-time, choice, multiselect, secret, file, secret-file)"
        ),
    };
    if other
        && !matches!(
            kind,
            FieldKind::Choice { .. } | FieldKind::Multiselect { .. }
        )
    {
        bail!("--field {spec:?}: +other applies to choice and multiselect only");
    }
    Ok(Field {
        id: id.to_owned(),
        label,
        kind,
        required,
        ..Default::default()
    })
}

/// `HEADER|QUESTION|OPT1,OPT2[|multi]` → a question.
pub fn question(spec: &str) -> Result<Question> {
    let parts: Vec<&str> = spec.split('|').map(str::trim).collect();
    let (header, text, options, multi) = match parts.as_slice() {
        [h, q, o] => (*h, *q, *o, false),
        [h, q, o, "multi"] => (*h, *q, *o, true),
        _ => bail!("--question {spec:?}: expected HEADER|QUESTION|OPTION,OPTION[|multi]"),
    };
    Ok(Question {
        question: text.to_owned(),
        header: (!header.is_empty()).then(|| header.to_owned()),
        options: options
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(|o| QuestionOption {
                label: o.to_owned(),
                description: None,
                preview: None,
            })
            .collect(),
        multi_select: multi,
    })
}

/// `--schema FILE` → the JSON Schema form.
pub fn schema(path: &Path) -> Result<FormSchema> {
    serde_json::from_str(&read_text(path)?)
        .with_context(|| format!("--schema {}: not a JSON Schema object", path.display()))
}

/// `KIND:FILE[:LANGUAGE]` → a block.
pub fn block(spec: &str) -> Result<Block> {
    let mut parts = spec.splitn(3, ':');
    let kind = parts.next().unwrap_or_default().trim();
    let Some(file) = parts.next().map(str::trim).filter(|f| !f.is_empty()) else {
        bail!("--block {spec:?}: expected KIND:FILE[:LANGUAGE]");
    };
    let language = parts.next().map(|l| l.trim().to_owned());
    let text = read_text(Path::new(file))?;
    let title = Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let text_block = |text: String| TextBlock {
        text,
        language: language.clone(),
        title: title.clone(),
        requires_review: false,
    };
    Ok(match kind {
        "code" => Block::Code(text_block(text)),
        "diff" => Block::Diff(text_block(text)),
        "json" => Block::Json(text_block(text)),
        "table" => Block::Table(serde_json::from_str::<TableBlock>(&text).with_context(|| {
            format!(
                "--block {spec:?}: a table file holds {{\"columns\": [...], \"rows\": [[...]]}}"
            )
        })?),
        "image" => bail!("--block {spec:?}: an image block is image:PATH[:ALT]"),
        other => bail!("--block {spec:?}: unknown kind {other:?} (code, diff, json, table)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_specs() {
        let f = field("env!:choice:Environment:prod, staging").unwrap();
        assert_eq!(f.id, "env", "id without the required mark");
        assert!(f.required, "! marks required");
        assert!(
            matches!(&f.kind, FieldKind::Choice { options, other: false } if options.len() == 2),
            "two options"
        );
        assert!(
            matches!(
                field("s:choice+other:S:a").unwrap().kind,
                FieldKind::Choice { other: true, .. }
            ),
            "+other allows free text"
        );
        assert!(field("d:date-time").is_ok(), "date-time");
        assert!(field("n:integer:Count").is_ok(), "integer");
        assert_eq!(
            field("why:text").unwrap().label,
            "why",
            "label defaults to the id"
        );
        assert!(field("x").is_err(), "type is required");
        assert!(field("x:color").is_err(), "unknown type");
        assert!(field("x:text+other").is_err(), "+other only on choices");
        assert_eq!(
            field("token:secret:API token").unwrap().kind,
            FieldKind::Secret,
            "secret fields (their values go to --out)"
        );
        assert_eq!(
            action("approve:Approve").unwrap().label,
            "Approve",
            "action label"
        );
        assert!(action("approve").is_err(), "action needs a label");
    }

    #[test]
    fn json_content_with_unknown_keys_is_refused() {
        let ok = r#"{"title":"T","fields":[{"id":"a","label":"A","type":"integer","required":true,"maximum":3}]}"#;
        assert!(
            strict_content(ok).is_ok(),
            "known keys pass: {:?}",
            strict_content(ok).err()
        );
        let typo = r#"{"title":"T","requird":true}"#;
        let err = strict_content(typo).unwrap_err().to_string();
        assert!(err.contains("requird"), "a top-level typo is named: {err}");
        let nested =
            r#"{"title":"T","fields":[{"id":"a","label":"A","type":"integer","maximun":3}]}"#;
        let err = format!("{:#}", strict_content(nested).unwrap_err());
        assert!(
            err.contains("fields.0.maximun"),
            "a typo inside a field is named: {err}"
        );
        let misplaced = r#"{"title":"T","fields":[{"id":"a","label":"A","type":"text","options":[{"value":"x","label":"X"}]}]}"#;
        let err = format!("{:#}", strict_content(misplaced).unwrap_err());
        assert!(
            err.contains("fields.0.options"),
            "options on a text field are not silently ignored: {err}"
        );
        let block = r#"{"title":"T","blocks":[{"type":"code","text":"x","langauge":"python"}]}"#;
        let err = format!("{:#}", strict_content(block).unwrap_err());
        assert!(
            err.contains("blocks.0.langauge"),
            "a typo inside a block is named: {err}"
        );
    }

    #[test]
    fn question_specs() {
        let q = question("Auth|Which sign-in method?|Passkeys, Magic links").unwrap();
        assert_eq!(q.header.as_deref(), Some("Auth"), "header");
        assert_eq!(q.options.len(), 2, "options");
        assert!(!q.multi_select, "single by default");
        assert!(
            question("P|Platforms?|Web,macOS|multi")
                .unwrap()
                .multi_select,
            "multi"
        );
        assert!(question("only|two").is_err(), "three parts at least");
        assert!(
            question("a|b|c|many").is_err(),
            "only `multi` as the fourth part"
        );
    }
}
