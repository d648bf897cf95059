//! `membank mcp` driven by a minimal JSON-RPC client written here, not by
//! the SDK the server is built on: newline-delimited JSON over the child's
//! standard input and output, as the protocol's stdio transport says.
//! Every tool's arguments are turned into the matching command line
//! mechanically (argument `source_lang` is option `--source-lang`), and
//! its structured result must be the command's `--json` output, its text
//! the command's readable report.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use membank_llm::quoting::{CLOSE, MEMORY_IS_DATA, OPEN};
use serde_json::{Value, json};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A server under test and the lines it writes.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(path: &Path, extra: &[&str]) -> Server {
        let mut child = support::membank()
            .env("NO_COLOR", "1")
            .arg("mcp")
            .arg(path)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("membank mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        // A reader thread, so a server that stops answering fails the test
        // instead of hanging it.
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mcp_vs_cli", "version": "0"}
            }),
        );
        assert_eq!(init["serverInfo"]["name"], "membank", "{init}");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_string(message).unwrap();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The whole answer to one request; notifications in between are
    /// skipped.
    fn answer(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == json!(id) {
                return message;
            }
            assert!(message.get("method").is_some(), "a stray answer: {message}");
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let answer = self.answer(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// Every tool, following the list's pages.
    fn tools(&mut self) -> Vec<Value> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = self.request("tools/list", params);
            tools.extend(page["tools"].as_array().unwrap().iter().cloned());
            match page.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return tools,
            }
        }
    }

    fn tool_names(&mut self) -> Vec<String> {
        self.tools()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A tool error's text (the call itself must succeed as JSON-RPC).
    fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments.clone());
        assert_eq!(
            result["isError"], true,
            "{tool} {arguments} should fail: {result}"
        );
        assert!(result.get("structuredContent").is_none_or(Value::is_null));
        text(&result)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| {
            assert_eq!(c["type"], "text", "{c}");
            c["text"].as_str().unwrap().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The positional argument of each command, by tool.
fn positional(tool: &str) -> Option<&'static str> {
    match tool {
        "read" => Some("target"),
        "links" => Some("article"),
        "search" => Some("query"),
        "recall" => Some("cue"),
        _ => None,
    }
}

/// The command line asking what `arguments` ask: the command of the same
/// name, the memory, the positional argument, then every other argument as
/// its long option (`_` → `-`; `true` a flag, a list one option per item).
fn command_line(tool: &str, path: &Path, arguments: &Value) -> Vec<String> {
    let mut argv = vec![tool.to_owned(), path.to_str().unwrap().to_owned()];
    let args = arguments.as_object().unwrap();
    if let Some(name) = positional(tool) {
        argv.push(args[name].as_str().unwrap().to_owned());
    }
    for (name, value) in args {
        // The command line lists every entry; only the tool pages them.
        if Some(name.as_str()) == positional(tool) || (tool == "entries" && name == "limit") {
            continue;
        }
        let option = format!("--{}", name.replace('_', "-"));
        match value {
            Value::Bool(true) => argv.push(option),
            Value::Bool(false) | Value::Null => {}
            Value::Array(items) => {
                for item in items {
                    argv.push(option.clone());
                    argv.push(scalar(item));
                }
            }
            v => {
                argv.push(option);
                argv.push(scalar(v));
            }
        }
    }
    argv
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn cli(argv: &[String]) -> (String, String) {
    let out = support::membank()
        .env("NO_COLOR", "1")
        .args(argv)
        .output()
        .expect("membank runs");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Call the tool and run the command; the structured result must be the
/// `--json` output and the text the readable report.
fn same_as_cli(server: &mut Server, path: &Path, tool: &str, arguments: Value) {
    let result = server.call(tool, arguments.clone());
    assert_eq!(result["isError"], false, "{tool} {arguments}: {result}");
    let argv = command_line(tool, path, &arguments);
    let mut json_argv = argv.clone();
    json_argv.push("--json".into());
    let (json_out, json_err) = cli(&json_argv);
    let expected: Value = serde_json::from_str(&json_out)
        .unwrap_or_else(|e| panic!("{json_argv:?} printed no JSON ({e}): {json_err}"));
    assert_eq!(
        result["structuredContent"], expected,
        "{tool} {arguments} differs from {json_argv:?}"
    );

    let texts: Vec<&str> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| unquoted(c["text"].as_str().unwrap()))
        .collect();
    let (report, warnings) = cli(&argv);
    let first = texts[0];
    if tool == "context" {
        // The table, then what the command warns about on stderr; the
        // second text is the assembled context, `--render`'s output.
        let mut table = as_a_tool_names_them(&report);
        for w in warnings.lines() {
            table.push_str(&w.replace("membank: warning:", "warning:"));
            table.push('\n');
        }
        assert_eq!(first, table, "{tool} {arguments}: the table");
        let mut render_argv = argv.clone();
        render_argv.push("--render".into());
        assert_eq!(
            texts[1],
            cli(&render_argv).0,
            "{tool} {arguments}: the context"
        );
    } else {
        assert_eq!(texts.len(), 1, "{tool}: {texts:?}");
        assert_eq!(
            first,
            as_a_tool_names_them(&report),
            "{tool} {arguments}: the readable report"
        );
    }
}

/// The command's report as a tool words it: where the command's own
/// words name its option `--include-unscored`, the tool names its
/// argument `` `include_unscored` `` (the mechanical mapping of
/// [`command_line`] the other way). Only the options a report names, so
/// stored text quoting a flag (`cargo bench --profile`) is left alone.
fn as_a_tool_names_them(report: &str) -> String {
    let mut out = report.to_owned();
    for option in ["offset", "limit", "include-unscored", "path"] {
        for before in [' ', '('] {
            out = out.replace(
                &format!("{before}--{option}"),
                &format!("{before}`{}`", option.replace('-', "_")),
            );
        }
    }
    out
}

/// A tool's text without the quote marking it as stored memory (the same
/// report the command prints, which always ends its last line).
fn unquoted(text: &str) -> &str {
    let open = format!("{MEMORY_IS_DATA}\n{OPEN}\n");
    let close = format!("{CLOSE}\n");
    text.strip_prefix(open.as_str())
        .and_then(|t| t.strip_suffix(close.as_str()))
        .unwrap_or_else(|| panic!("a tool's text is not quoted as memory: {text:?}"))
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}

#[test]
fn every_bank_tool_answers_like_the_command_line() {
    let bank = fixture("demo-bank");
    let mut s = Server::start(&bank, &[]);
    assert_eq!(
        s.tool_names(),
        [
            "context", "read", "links", "check", "search", "values", "terms", "qa"
        ]
    );
    for (tool, arguments) in [
        (
            "context",
            json!({"client": "Brightwell Pharma", "source_lang": "en-US", "target_lang": "nl-BE"}),
        ),
        (
            "context",
            json!({"client": "Brightwell Pharma", "domain": "Pharmaceuticals", "budget": 900, "limit": 3}),
        ),
        (
            "context",
            json!({"domain": "pharmaceuticals", "target_lang": "nl", "budget": 0, "include_unscored": true, "limit": 2}),
        ),
        ("context", json!({"client": "Brightwel Pharma", "limit": 5})),
        ("context", json!({})),
        ("read", json!({"target": "[[Harbour Lines]]"})),
        ("read", json!({"target": "03_DOMAINS/Pharmaceuticals.md"})),
        ("links", json!({"article": "Brightwell Pharma"})),
        ("check", json!({})),
        (
            "check",
            json!({"code": ["dead-link"], "path": "01_CLIENTS", "stale_days": 0}),
        ),
        ("check", json!({"limit": 2, "offset": 1})),
        ("check", json!({"limit": 3, "offset": 100})),
        ("search", json!({"query": "package leaflet"})),
        (
            "search",
            json!({"query": "leaflet", "limit": 2, "offset": 1}),
        ),
        ("search", json!({"query": "zzzznothing"})),
        ("values", json!({})),
    ] {
        same_as_cli(&mut s, &bank, tool, arguments);
    }

    // A page is a slice of the whole list; the counts are the whole list's.
    let all = s.call("check", json!({}))["structuredContent"].clone();
    let page = s.call("check", json!({"limit": 2, "offset": 1}))["structuredContent"].clone();
    let findings = |v: &Value| v["findings"].as_array().unwrap().clone();
    assert!(findings(&all).len() > 3, "{all}");
    assert_eq!(findings(&page), findings(&all)[1..3]);
    assert_eq!(page["counts"], all["counts"]);
    assert_eq!(page["total"], findings(&all).len());
    assert_eq!(
        (&all["truncated"], &page["truncated"]),
        (&json!(false), &json!(true))
    );
    let hits = |v: Value| v["structuredContent"]["hits"].as_array().unwrap().clone();
    let all = hits(s.call("search", json!({"query": "leaflet"})));
    let page = hits(s.call(
        "search",
        json!({"query": "leaflet", "limit": 2, "offset": 1}),
    ));
    assert!(all.len() > 3);
    assert_eq!(page, all[1..3]);
}

#[test]
fn a_dejavu_project_answers_like_the_command_line() {
    for project in ["demo-dejavu", "tests/fixtures/dejavu/flawed-project"] {
        let path = fixture(project);
        // The command line shows private memory to its user; the server
        // does so only when told (the flawed project has some).
        let mut s = Server::start(&path, &["--include-private"]);
        assert_eq!(s.tool_names(), ["recall", "read", "check", "search"]);
        for (tool, arguments) in [
            ("recall", json!({"cue": "settings migration"})),
            ("recall", json!({"cue": "nothing like this at all"})),
            ("check", json!({})),
            ("check", json!({"limit": 1})),
            ("search", json!({"query": "user project"})),
            (
                "search",
                json!({"query": "user project", "limit": 1, "offset": 1}),
            ),
        ] {
            same_as_cli(&mut s, &path, tool, arguments);
        }
    }
    let path = fixture("demo-dejavu");
    let mut s = Server::start(&path, &[]);
    same_as_cli(&mut s, &path, "read", json!({"target": "AGENTS.md"}));
}

#[test]
fn an_everos_root_answers_like_the_command_line() {
    for root in ["demo-everos", "tests/fixtures/everos-root"] {
        let path = fixture(root);
        let mut s = Server::start(&path, &[]);
        assert_eq!(s.tool_names(), ["entries", "read", "check", "search"]);
        for (tool, arguments) in [
            ("entries", json!({"limit": 1000})),
            ("check", json!({})),
            ("search", json!({"query": "user"})),
            ("search", json!({"query": "the", "limit": 3, "offset": 2})),
        ] {
            same_as_cli(&mut s, &path, tool, arguments);
        }
        // An entry read by id answers like `membank entry`.
        let entries = s.call("entries", json!({}))["structuredContent"].clone();
        let first = &entries["entries"][0];
        let id = first["id"].as_str().expect("an entry id").to_owned();
        let result = s.call("read", json!({"target": id}));
        if result["isError"] == true {
            // The id is used by several owners: the error says to name one.
            assert!(text(&result).contains("user") || text(&result).contains("agent"));
        } else {
            let (out, err) = cli(&[
                "entry".into(),
                path.to_str().unwrap().into(),
                id.clone(),
                "--json".into(),
            ]);
            let expected: Value =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
            assert_eq!(result["structuredContent"], expected, "entry {id}");
        }
    }
}

#[test]
fn bad_arguments_are_tool_errors_that_say_what_to_do() {
    let bank = fixture("demo-bank");
    let mut s = Server::start(&bank, &[]);
    let e = s.refused("context", json!({"clinet": "Acme"}));
    assert!(e.contains("\"clinet\"") && e.contains("client"), "{e}");
    let e = s.refused("context", json!({"budget": "lots"}));
    assert!(
        e.contains("context") && e.contains("budget") || e.contains("invalid"),
        "{e}"
    );
    let e = s.refused("read", json!({}));
    assert!(e.contains("target"), "{e}");
    let e = s.refused("read", json!({"target": "No Such Article"}));
    assert!(e.contains("No Such Article"), "{e}");
    let e = s.refused("check", json!({"code": ["no-such-code"]}));
    assert!(
        e.contains("unknown finding code") && e.contains("dead-link"),
        "{e}"
    );
    // An answer's size is bounded, and the error says how to page.
    let e = s.refused("check", json!({"limit": 100000}));
    assert!(e.contains("offset") && e.contains("500"), "{e}");
    let e = s.refused("check", json!({"limit": 0}));
    assert!(e.contains("offset"), "{e}");
    let e = s.refused("search", json!({"query": "leaflet", "limit": 1000}));
    assert!(e.contains("offset") && e.contains("100"), "{e}");
    let e = s.refused("recall", json!({"cue": "x"}));
    assert!(
        e.contains("recall works on") && e.contains("context"),
        "{e}"
    );
    // A name no tool has is the protocol's unknown tool.
    let answer = s.answer(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let e = answer["error"]["message"].as_str().unwrap();
    assert!(e.contains("no tool named") && e.contains("search"), "{e}");
    // A request the protocol itself does not know is a JSON-RPC error, and
    // the server goes on answering.
    let answer = s.answer("no/such/method", json!({}));
    assert!(answer["error"]["code"].is_i64(), "{answer}");
    same_as_cli(&mut s, &bank, "values", json!({}));
}

/// A copy of `from` in a new folder.
fn copy_of(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    copy_tree(from, &to);
    to
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn writes_need_allow_writes_and_never_leave_the_bank() {
    let dir = tempfile::tempdir().unwrap();
    let served = copy_of(&fixture("demo-bank"), dir.path(), "served");
    let by_cli = copy_of(&fixture("demo-bank"), dir.path(), "cli");
    let reply = "Done.\n\
                 ### FILE: ../outside.md\nescaped\n\
                 ### FILE: 01_CLIENTS/../../outside2.md\nescaped\n\
                 ### FILE: 06_TEMPLATES/compile.md\nowned\n\
                 ### FILE: 01_CLIENTS/New Client.md\n---\nclient: New Client\n---\n# New Client\n";

    let mut read_only = Server::start(&served, &[]);
    assert!(!read_only.tool_names().contains(&"propose_write".to_owned()));
    let e = read_only.refused("propose_write", json!({ "reply": reply }));
    assert!(e.contains("--allow-writes"), "{e}");
    let e = read_only.refused("apply_write", json!({ "proposal_id": "p1" }));
    assert!(e.contains("--allow-writes"), "{e}");
    drop(read_only);

    let mut s = Server::start(&served, &["--allow-writes"]);
    let proposed = s.call("propose_write", json!({ "reply": reply }));
    assert_eq!(proposed["isError"], false, "{proposed}");
    let v = &proposed["structuredContent"];
    let statuses: Vec<&str> = v["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["rejected", "rejected", "rejected", "new"], "{v}");
    assert!(!served.join("01_CLIENTS/New Client.md").exists());
    let id = v["proposal_id"].as_str().unwrap().to_owned();
    let applied = s.call("apply_write", json!({ "proposal_id": id }));
    assert_eq!(applied["isError"], false, "{applied}");

    // The same reply through `membank blocks --apply --json`.
    let reply_file = dir.path().join("reply.md");
    std::fs::write(&reply_file, reply).unwrap();
    let (out, err) = cli(&[
        "blocks".into(),
        by_cli.to_str().unwrap().into(),
        "--reply".into(),
        reply_file.to_str().unwrap().into(),
        "--apply".into(),
        "--json".into(),
    ]);
    let expected: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(applied["structuredContent"], expected);
    assert_eq!(
        std::fs::read(served.join("01_CLIENTS/New Client.md")).unwrap(),
        std::fs::read(by_cli.join("01_CLIENTS/New Client.md")).unwrap()
    );
    for outside in ["outside.md", "outside2.md"] {
        assert!(!dir.path().join(outside).exists(), "{outside} was written");
    }
    assert_eq!(
        std::fs::read(served.join("06_TEMPLATES/compile.md")).ok(),
        std::fs::read(fixture("demo-bank/06_TEMPLATES/compile.md")).ok()
    );
}
