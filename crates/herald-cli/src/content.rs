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

use herald_protocol::json;

use crate::args::ContentArgs;

/// Largest input file read (bodies, blocks, JSON content): 4 bytes per character of the
/// largest content part plus room for JSON, so a mistaken `/dev/zero` fails fast.
const MAX_INPUT_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a text input (`-`: standard input) of at most 4 MiB of UTF-8, naming the file in
/// errors.
pub fn read_text(path: &Path) -> Result<String> {
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
    one_stdin(&content_stdin(args))?;
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
    // Image blocks are made once their file is uploaded (attach.rs).
    for spec in args.blocks.iter().filter(|s| !is_image_spec(s)) {
        content.blocks.push(block(spec)?);
    }
    if args.requires_review {
        content.requires_review = true;
    }
    Ok(content)
}

/// Parses content JSON (herald-protocol's strict reader: a key given twice is refused),
/// refusing keys Herald does not know: a misspelt `requird` or `maximun` would otherwise drop
/// a constraint without a word. Paths read `fields[0].maximun`, as in every other error.
fn strict_content(text: &str) -> Result<MessageContent> {
    let (content, mut unknown) = json::from_slice_known::<MessageContent>(text.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}", json_message(&e, "Herald message content")))?;
    // Fields and blocks are flattened/tagged, which hides their unknown keys from
    // serde_ignored: compare each with its re-serialized self instead.
    let input = json::parse_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
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
                let path = format!("{list}[{i}].{key}");
                if dropped && !is_default && !unknown.contains(&path) {
                    unknown.push(path);
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

/// A strict-reader error as one line: a shape error names its path (`title: expected a
/// string, found a number`; the root reads "expected an object (WHAT), …").
pub fn json_message(e: &json::JsonError, what: &str) -> String {
    if e.path.is_empty() && !e.syntax && e.message.starts_with("expected an object") {
        e.message.replacen(
            "expected an object",
            &format!("expected an object ({what})"),
            1,
        )
    } else {
        e.to_string()
    }
}

/// `spec` split at every `sep` not escaped by a backslash. Escapes stay in the parts (they
/// may be split again, e.g. options at `,`); [`unescape`] removes them.
fn split_unescaped(spec: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut chars = spec.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|(_, n)| ESCAPABLE.contains(*n)) {
            chars.next();
        } else if c == sep {
            parts.push(&spec[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&spec[start..]);
    parts
}

/// The characters a backslash escapes in flag specs: the separators and itself. Any other
/// backslash is kept as written (a Windows path stays intact).
const ESCAPABLE: &str = ":,|=\\";

/// `\:` → `:`, `\,` → `,`, `\|` → `|`, `\=` → `=`, `\\` → `\`; any other backslash stays.
fn unescape(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    let mut chars = part.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&n) if c == '\\' && ESCAPABLE.contains(n) => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// A comma-separated option list: each option unescaped and trimmed; an empty option (`a,,b`,
/// a trailing comma) is refused rather than dropped.
fn option_list(flag: &str, spec: &str, list: &str) -> Result<Vec<String>> {
    let mut options = Vec::new();
    for raw in split_unescaped(list, ',') {
        let option = unescape(raw).trim().to_owned();
        if option.is_empty() {
            bail!("{flag} {spec:?}: an option is empty (two commas in a row, or one at an end); write `\\,` for a comma inside an option");
        }
        options.push(option);
    }
    Ok(options)
}

/// Refuses a command where more than one input reads standard input (`-`): the first would
/// take all of it and the others would get nothing. `uses` are (flag, whether it reads `-`).
pub fn one_stdin(uses: &[(String, bool)]) -> Result<()> {
    let flags: Vec<&str> = uses
        .iter()
        .filter(|(_, stdin)| *stdin)
        .map(|(flag, _)| flag.as_str())
        .collect();
    if let [first @ .., last] = flags.as_slice() {
        if !first.is_empty() {
            let both = if first.len() == 1 { "both" } else { "all" };
            bail!(
                "{} and {last} {both} read standard input (`-`), which can feed only one of them: give the others a file",
                first.join(", ")
            );
        }
    }
    Ok(())
}

/// Whether `path` is `-` (standard input).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The stdin uses of the shared content flags: `--json -`, `--body-file -`, `--block KIND:-`.
pub fn content_stdin(args: &ContentArgs) -> Vec<(String, bool)> {
    let mut uses = vec![
        (
            "--json -".to_owned(),
            args.json.as_deref().is_some_and(is_stdin),
        ),
        (
            "--body-file -".to_owned(),
            args.body_file.as_deref().is_some_and(is_stdin),
        ),
    ];
    for spec in &args.blocks {
        let parts = split_unescaped(spec, ':');
        let reads = parts.get(1).is_some_and(|f| f.trim() == "-");
        uses.push((format!("--block {spec}"), reads));
    }
    uses
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

/// Refuses, in plain words, actions that leave a required field (or a question, which is
/// always required) unfilled: a tapped action answers the whole form with its own values,
/// fixed when the request is sent (an `--action`'s are empty), so it can never carry what the
/// person types. Says how to ask Approve/Reject with a required reason instead.
pub fn check_actions_fill_form(content: &MessageContent, action_flags: &[String]) -> Result<()> {
    let fields = content.effective_fields();
    for action in &content.actions {
        let missing: Vec<String> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.required && !f.nullable && !action.values.contains_key(&f.id))
            .map(|(i, f)| {
                if content.fields.is_empty() && !content.questions.is_empty() {
                    format!("--question {} ({:?})", i + 1, f.label)
                } else {
                    format!("{:?}", f.id)
                }
            })
            .collect();
        if missing.is_empty() {
            continue;
        }
        let flag = action_flags
            .iter()
            .find(|s| s.split(':').next().map(str::trim) == Some(action.id.as_str()))
            .map_or_else(
                || format!("action {:?}", action.id),
                |s| format!("--action {s}"),
            );
        bail!(
            "{flag} cannot go with the required {}: tapping an action answers the whole form with the action's own values, fixed when the request is sent (an --action's are empty), so it cannot carry what the person types. To ask Approve/Reject with a required reason, ask the decision as a field instead of actions: --field 'decision!:choice:Decision:Approve,Reject' --field 'reason!:text:Reason' (answered with `herald inbox answer ID --json '{{\"decision\":\"Approve\",\"reason\":\"…\"}}'`); or make the field optional (drop its `!`) and keep the actions",
            missing.join(", ")
        );
    }
    Ok(())
}

/// `ID[!]:TYPE[+other][:LABEL[:OPT1,OPT2]]` → a field. `\:` is a colon inside the label or
/// an option, `\,` a comma inside an option. More parts than that, or options on a type that
/// has none, are refused (they would otherwise be lost).
pub fn field(spec: &str) -> Result<Field> {
    let parts = split_unescaped(spec, ':');
    if parts.len() < 2 {
        bail!("--field {spec:?}: expected ID:TYPE[:LABEL[:OPTIONS]]");
    }
    if parts.len() > 4 {
        bail!(
            "--field {spec:?}: too many `:`-separated parts (ID:TYPE[:LABEL[:OPTIONS]]); write `\\:` for a colon inside the label or an option, e.g. 'when:text:Start time (HH\\:MM)'"
        );
    }
    let raw_id = unescape(parts[0]);
    let raw_id = raw_id.trim();
    let (id, required) = match raw_id.strip_suffix('!') {
        Some(id) => (id, true),
        None => (raw_id, false),
    };
    let label = parts
        .get(2)
        .map(|l| unescape(l).trim().to_owned())
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| id.to_owned());
    let kind_text = unescape(parts[1]);
    let (kind, other) = match kind_text.trim().strip_suffix("+other") {
        Some(k) => (k, true),
        None => (kind_text.trim(), false),
    };
    let given_options = parts.get(3).map(|o| o.trim()).filter(|o| !o.is_empty());
    let choice = matches!(kind, "choice" | "multiselect");
    if let (Some(list), false) = (given_options, choice) {
        bail!(
            "--field {spec:?}: options ({list:?}) are for choice and multiselect fields; a {kind} field takes none (a colon in the label? write it as `\\:`)"
        );
    }
    let options: Vec<ChoiceOption> = match given_options {
        Some(list) => option_list("--field", spec, list)?,
        None => Vec::new(),
    }
    .into_iter()
    .map(|o| ChoiceOption {
        value: o.clone(),
        label: o,
        description: None,
        preview: None,
    })
    .collect();
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

/// `HEADER|QUESTION|OPT1,OPT2[|multi]` → a question. `\|` is a `|` inside the header or the
/// question, `\,` a comma inside an option; an empty option is refused.
pub fn question(spec: &str) -> Result<Question> {
    let parts: Vec<&str> = split_unescaped(spec, '|')
        .into_iter()
        .map(str::trim)
        .collect();
    let (header, text, options, multi) = match parts.as_slice() {
        [h, q, o] => (*h, *q, *o, false),
        [h, q, o, "multi"] => (*h, *q, *o, true),
        _ => bail!("--question {spec:?}: expected HEADER|QUESTION|OPTION,OPTION[|multi] (write `\\|` for a | inside the text)"),
    };
    let header = unescape(header);
    Ok(Question {
        question: unescape(text),
        header: (!header.is_empty()).then_some(header),
        options: option_list("--question", spec, options)?
            .into_iter()
            .map(|label| QuestionOption {
                label,
                description: None,
                preview: None,
            })
            .collect(),
        multi_select: multi,
    })
}

/// `--schema FILE` → the JSON Schema form (read strictly: a key given twice is refused).
pub fn schema(path: &Path) -> Result<FormSchema> {
    json::from_str(&read_text(path)?).map_err(|e| {
        anyhow::anyhow!(
            "--schema {}: {}",
            path.display(),
            json_message(&e, "a JSON Schema object")
        )
    })
}

/// `KIND:FILE[:LANGUAGE]` → a block (`\:` for a colon in FILE). LANGUAGE is for the text
/// kinds (code, diff, json) only.
pub fn block(spec: &str) -> Result<Block> {
    let parts = split_unescaped(spec, ':');
    let kind = parts[0].trim();
    if kind == "image" {
        bail!("--block {spec:?}: an image block is image:PATH[:ALT]");
    }
    let Some(file) = parts
        .get(1)
        .map(|f| unescape(f).trim().to_owned())
        .filter(|f| !f.is_empty())
    else {
        bail!("--block {spec:?}: expected KIND:FILE[:LANGUAGE]");
    };
    if parts.len() > 3 {
        bail!("--block {spec:?}: too many `:`-separated parts (KIND:FILE[:LANGUAGE]); write `\\:` for a colon in the file name");
    }
    let language = parts.get(2).map(|l| unescape(l).trim().to_owned());
    let text_kind = matches!(kind, "code" | "diff" | "json");
    if !text_kind && language.is_some() && BLOCK_KINDS.contains(&kind) {
        bail!("--block {spec:?}: LANGUAGE is for code, diff and json blocks; a {kind} block takes none");
    }
    if !BLOCK_KINDS.contains(&kind) {
        bail!(
            "--block {spec:?}: unknown kind {kind:?} ({})",
            BLOCK_KINDS.join(", ")
        );
    }
    let text = read_text(Path::new(&file))?;
    let title = Path::new(&file)
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
        _ => Block::Table(json::from_str::<TableBlock>(&text).map_err(|e| {
            anyhow::anyhow!(
                "--block {spec:?}: {}; a table file holds {{\"columns\": [...], \"rows\": [[...]]}}",
                json_message(&e, "a table")
            )
        })?),
    })
}

/// Whether a `--block` spec is an image block (`image:PATH[:ALT]`, uploaded by attach.rs).
pub fn is_image_spec(spec: &str) -> bool {
    spec.trim_start().starts_with("image:")
}

/// `image:PATH[:ALT]` → (PATH, ALT): PATH ends at the first `:` not written `\:`; ALT is
/// the rest as written (colons included), unescaped.
pub fn image_parts(spec: &str) -> (String, Option<String>) {
    let rest = spec.trim_start().trim_start_matches("image:");
    let first = split_unescaped(rest, ':')[0];
    let path = unescape(first).trim().to_owned();
    let alt = rest
        .get(first.len() + 1..)
        .map(|a| unescape(a).trim().to_owned());
    (path, alt)
}

/// The kinds `--block` takes (image blocks are made by attach.rs).
const BLOCK_KINDS: &[&str] = &["code", "diff", "json", "table", "image"];

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
    fn field_specs_lose_nothing() {
        let err = field("when!:text:Start time (HH:MM)")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("options") && err.contains(r"\:"),
            "a colon in the label is refused, saying how to escape it: {err}"
        );
        let f = field(r"when!:text:Start time (HH\:MM)").unwrap();
        assert_eq!(f.label, "Start time (HH:MM)", "an escaped colon is kept");
        let err = field("n:integer:Count:1,2").unwrap_err().to_string();
        assert!(err.contains("choice and multiselect"), "{err}");
        assert!(field("a:text:A:b:c").is_err(), "five parts");
        let f = field(r"t:choice:Time:09\:00,10\:30,Yes\, now").unwrap();
        let (options, _) = f.kind.options().unwrap();
        let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
        assert_eq!(values, ["09:00", "10:30", "Yes, now"]);
        assert!(
            field("e:choice:E:prod,,staging").is_err(),
            "an empty option"
        );
        assert!(field("e:choice:E:prod,").is_err(), "a trailing comma");
        assert_eq!(
            field(r"p:text:Back\slash").unwrap().label,
            r"Back\slash",
            "other backslashes stay"
        );
    }

    #[test]
    fn question_and_block_specs_lose_nothing() {
        let q = question(r"H|Which one\|both?|Yes\, deploy,No").unwrap();
        assert_eq!(q.question, "Which one|both?");
        assert_eq!(q.options[0].label, "Yes, deploy");
        assert_eq!(q.options.len(), 2);
        assert!(question("H|Q|a,,b").is_err(), "an empty option");
        let err = block("video:x").unwrap_err().to_string();
        assert!(err.contains("image"), "the kinds include image: {err}");
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("t.json");
        std::fs::write(&table, r#"{"columns":["a"],"rows":[["1"]]}"#).unwrap();
        let spec = format!("table:{}:python", table.display());
        assert!(block(&spec).is_err(), "a language on a table is refused");
        std::fs::write(&table, r#"{"columns":["a"],"columns":["b"],"rows":[]}"#).unwrap();
        let err = format!(
            "{:#}",
            block(&format!("table:{}", table.display())).unwrap_err()
        );
        assert!(err.contains("columns") && err.contains("twice"), "{err}");
        assert!(block("code:a:b:c").is_err(), "four parts");
    }

    #[test]
    fn two_stdin_inputs_are_refused() {
        let uses = [
            ("--json -".to_owned(), true),
            ("--body-file -".to_owned(), true),
            ("--schema -".to_owned(), false),
        ];
        let err = one_stdin(&uses).unwrap_err().to_string();
        assert!(
            err.contains("--json -") && err.contains("--body-file -"),
            "{err}"
        );
        assert!(one_stdin(&uses[1..]).is_ok());
    }

    #[test]
    fn json_content_errors_are_ours() {
        let err = strict_content(r#"{"title":"a","title":"b"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("title") && err.contains("twice"), "{err}");
        let err = strict_content("[]").unwrap_err().to_string();
        assert!(
            err.contains("expected an object (Herald message content), found an array"),
            "{err}"
        );
        assert!(!err.contains("struct"), "{err}");
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
            err.contains("fields[0].maximun"),
            "a typo inside a field is named: {err}"
        );
        let misplaced = r#"{"title":"T","fields":[{"id":"a","label":"A","type":"text","options":[{"value":"x","label":"X"}]}]}"#;
        let err = format!("{:#}", strict_content(misplaced).unwrap_err());
        assert!(
            err.contains("fields[0].options"),
            "options on a text field are not silently ignored: {err}"
        );
        let block = r#"{"title":"T","blocks":[{"type":"code","text":"x","langauge":"python"}]}"#;
        let err = format!("{:#}", strict_content(block).unwrap_err());
        assert!(
            err.contains("blocks[0].langauge"),
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
