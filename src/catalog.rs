//! The perspective catalog (docs/guide.md, "Perspective catalog"): built-in entries, overlays from settings and the
//! repository, and validation. Pure: the caller reads the files.

use crate::model::{CatalogFile, CatalogOverlay, PerspectiveDef};

/// The catalog compiled into the binary.
pub const BUILT_IN: &str = include_str!("../perspectives.yaml");
const BUILT_IN_ORIGIN: &str = "perspectives.yaml (built in)";

/// A catalog entry that breaks the rules, named by file, entry and field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CatalogError(pub String);

impl CatalogError {
    pub fn exit_code(&self) -> u8 {
        4
    }

    pub fn hint(&self) -> Option<String> {
        Some("fix the perspective catalog entry named above".into())
    }
}

/// A validated catalog, in a stable order (built-in order, then additions).
#[derive(Debug, Clone)]
pub struct Catalog {
    entries: Vec<PerspectiveDef>,
}

impl Catalog {
    /// The built-in catalog with `overlays` applied in order; a later entry with the same
    /// name (compared without case) replaces the earlier one.
    pub fn build(overlays: &[CatalogOverlay]) -> Result<Catalog, CatalogError> {
        let built_in: CatalogFile = crate::text::yaml::parse(BUILT_IN, BUILT_IN_ORIGIN).map_err(CatalogError)?;
        let mut entries: Vec<(String, PerspectiveDef)> = Vec::new();
        let sources = std::iter::once((BUILT_IN_ORIGIN, &built_in.perspectives))
            .chain(overlays.iter().map(|o| (o.origin.as_str(), &o.entries)));
        for (origin, defs) in sources {
            let mut seen = Vec::new();
            for def in defs {
                validate_entry(def, origin)?;
                let key = def.name.trim().to_lowercase();
                if seen.contains(&key) {
                    return Err(CatalogError(format!(
                        "{origin}: perspective {:?} is defined twice; names must be unique",
                        def.name
                    )));
                }
                seen.push(key.clone());
                let def = PerspectiveDef { name: def.name.trim().to_string(), ..def.clone() };
                match entries.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = def,
                    None => entries.push((key, def)),
                }
            }
        }
        let catalog = Catalog { entries: entries.into_iter().map(|(_, d)| d).collect() };
        catalog.validate_references(overlays)?;
        Ok(catalog)
    }

    pub fn entries(&self) -> &[PerspectiveDef] {
        &self.entries
    }

    /// Find an entry by name, ignoring case and surrounding space.
    pub fn find(&self, name: &str) -> Option<&PerspectiveDef> {
        let name = name.trim();
        self.entries.iter().find(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// Whether two perspectives oppose each other (either names the other).
    pub fn opposed(&self, a: &str, b: &str) -> bool {
        let names =
            |x: &str, y: &str| self.find(x).is_some_and(|e| e.opposes.iter().any(|o| o.eq_ignore_ascii_case(y)));
        names(a, b) || names(b, a)
    }

    fn validate_references(&self, overlays: &[CatalogOverlay]) -> Result<(), CatalogError> {
        for entry in &self.entries {
            for opposed in &entry.opposes {
                if self.find(opposed).is_none() {
                    let origin = overlays
                        .iter()
                        .rev()
                        .find(|o| o.entries.iter().any(|e| e.name.trim().eq_ignore_ascii_case(&entry.name)))
                        .map_or(BUILT_IN_ORIGIN, |o| o.origin.as_str());
                    return Err(CatalogError(format!(
                        "{origin}: perspective {:?}, field `opposes`: {opposed:?} is not in the catalog",
                        entry.name
                    )));
                }
            }
        }
        Ok(())
    }
}

fn validate_entry(def: &PerspectiveDef, origin: &str) -> Result<(), CatalogError> {
    let field_error = |field: &str, what: &str| {
        CatalogError(format!("{origin}: perspective {:?}, field `{field}`: {what}", def.name))
    };
    if def.name.trim().is_empty() {
        return Err(CatalogError(format!("{origin}: a perspective has an empty `name`")));
    }
    if def.name.chars().count() > 60 {
        return Err(field_error("name", "must be at most 60 characters"));
    }
    if def.priorities.is_empty() || def.priorities.iter().any(|p| p.trim().is_empty()) {
        return Err(field_error("priorities", "must list at least one non-empty priority"));
    }
    if def.trade_offs.trim().is_empty() {
        return Err(field_error("trade_offs", "must say what this perspective will give up"));
    }
    if def.opposes.iter().any(|o| o.trim().eq_ignore_ascii_case(def.name.trim())) {
        return Err(field_error("opposes", "a perspective cannot oppose itself"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlay(yaml: &str) -> CatalogOverlay {
        let file: CatalogFile = crate::text::yaml::parse(yaml, "custom.yaml").unwrap();
        CatalogOverlay { origin: "custom.yaml".into(), entries: file.perspectives }
    }

    #[test]
    fn built_in_catalog_has_seed_perspectives_and_more() {
        let catalog = Catalog::build(&[]).unwrap();
        for seed in [
            "Performance Advocate",
            "Simplicity Advocate",
            "Security Advocate",
            "Future Flexibility",
            "User Experience",
            "Operational Simplicity",
        ] {
            assert!(catalog.find(seed).is_some(), "{seed} missing");
        }
        assert!(catalog.entries().len() >= 12);
        for entry in catalog.entries() {
            assert!(
                !entry.keywords.is_empty() && !entry.opposes.is_empty(),
                "{} lacks keywords or opposes",
                entry.name
            );
        }
    }

    #[test]
    fn same_name_overrides_and_new_names_extend() {
        let catalog = Catalog::build(&[overlay(
            "perspectives:\n  - name: cost control\n    priorities: [x]\n    trade_offs: y\n  - name: Accessibility\n    priorities: [screen readers]\n    trade_offs: slower delivery\n    opposes: [Developer Velocity]\n",
        )])
        .unwrap();
        assert_eq!(catalog.find("Cost Control").unwrap().priorities, vec!["x"]);
        assert!(catalog.opposed("Accessibility", "Developer Velocity"));
        assert_eq!(catalog.entries().len(), Catalog::build(&[]).unwrap().entries().len() + 1);
    }

    #[test]
    fn errors_name_file_entry_and_field() {
        let err = Catalog::build(&[overlay("perspectives:\n  - name: Empty\n    priorities: []\n    trade_offs: y\n")])
            .unwrap_err();
        assert_eq!(
            err.0,
            "custom.yaml: perspective \"Empty\", field `priorities`: must list at least one non-empty priority"
        );
        let err = Catalog::build(&[overlay(
            "perspectives:\n  - name: A\n    priorities: [p]\n    trade_offs: y\n    opposes: [Nobody]\n",
        )])
        .unwrap_err();
        assert!(err.0.starts_with("custom.yaml: perspective \"A\", field `opposes`"), "{err}");
        let err = Catalog::build(&[overlay("perspectives:\n  - {name: A, priorities: [p], trade_offs: y}\n  - {name: a, priorities: [p], trade_offs: y}\n")]).unwrap_err();
        assert!(err.0.contains("defined twice"), "{err}");
    }
}
