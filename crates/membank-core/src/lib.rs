pub mod fileblocks;
pub mod frontmatter;
pub mod layout;
pub mod pathsafe;
pub mod text;
