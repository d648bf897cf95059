pub mod frontmatter;
pub mod init;
pub mod layout;
pub mod templates;
pub mod text;
