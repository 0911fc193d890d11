//! The decision record as markdown: the templates and what they see (the record's
//! context, the transcript's), and where the parts no template writes go.

mod context;
mod entries;
pub mod front_matter;
mod layout;
pub mod links;
mod templates;
mod transcript;

pub use templates::{Rendered, Templates, sidecar_path};

#[cfg(test)]
mod tests;
