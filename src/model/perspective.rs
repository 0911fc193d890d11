//! Perspectives: the viewpoints debaters argue, as the catalog defines them.

use serde::{Deserialize, Serialize};

/// One viewpoint a debater argues.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PerspectiveDef {
    pub name: String,
    pub priorities: Vec<String>,
    pub trade_offs: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub opposes: Vec<String>,
    #[serde(default)]
    pub domains: Vec<String>,
}

/// A catalog file: the built-in `perspectives.yaml`, or `.debate/perspectives.yaml` in
/// a repository.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogFile {
    pub perspectives: Vec<PerspectiveDef>,
}

/// Perspectives a settings layer or a repository file adds to the catalog, with where
/// they came from (for error messages).
#[derive(Debug, Clone)]
pub struct CatalogOverlay {
    pub origin: String,
    pub entries: Vec<PerspectiveDef>,
}
