//! Who reads a message that names an option or a command: a person at the
//! command line, who types `--include-unscored` and `membank fix`, or a
//! model calling an MCP tool, which passes the argument `include_unscored`
//! to the `fix` tool. One message is written once and names either, so the
//! model is never told to use a flag it cannot pass.

/// Where a message is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Surface {
    /// The command line: options are `--flags`, commands `membank x`.
    #[default]
    CommandLine,
    /// An MCP tool's answer: options are the tool's arguments.
    Tool,
}

impl Surface {
    /// The option `name`, spelt as the tool argument is
    /// (`include_unscored`), as this reader gives it: `--include-unscored`
    /// or `` `include_unscored` ``.
    pub fn option(self, name: &str) -> String {
        match self {
            Surface::CommandLine => format!("--{}", name.replace('_', "-")),
            Surface::Tool => format!("`{name}`"),
        }
    }

    /// How this reader runs `command` with the options written `flags` on
    /// the command line and `arguments` (JSON) by a tool: `` `membank fix
    /// --code stale` `` or `` the `fix` tool with `{"code": ["stale"]}` ``.
    pub fn invocation(self, command: &str, flags: &str, arguments: &str) -> String {
        match (self, flags.is_empty(), arguments.is_empty()) {
            (Surface::CommandLine, true, _) => format!("`membank {command}`"),
            (Surface::CommandLine, false, _) => format!("`membank {command} {flags}`"),
            (Surface::Tool, _, true) => format!("the `{command}` tool"),
            (Surface::Tool, _, false) => format!("the `{command}` tool with `{arguments}`"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reader_is_told_what_it_can_type() {
        assert_eq!(
            Surface::CommandLine.option("include_unscored"),
            "--include-unscored"
        );
        assert_eq!(
            Surface::Tool.option("include_unscored"),
            "`include_unscored`"
        );
        let stale = |s: Surface| s.invocation("fix", "--code stale", r#"{"code": ["stale"]}"#);
        assert_eq!(stale(Surface::CommandLine), "`membank fix --code stale`");
        assert_eq!(
            stale(Surface::Tool),
            r#"the `fix` tool with `{"code": ["stale"]}`"#
        );
        assert_eq!(Surface::Tool.invocation("mv", "", ""), "the `mv` tool");
    }
}
