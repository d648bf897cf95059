pub mod frontmatter;
pub mod layout;
pub mod templates;
pub mod text;
