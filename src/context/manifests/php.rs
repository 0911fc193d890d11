//! PHP: composer.json.

use super::declared::{Declared, plain_version};
use super::formats::{json_section, parse_json};

/// `require`; `require-dev` holds tools (PHP has no bundler shipping them).
pub fn composer(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_json(text)?;
    Ok(json_section(&manifest, "require")
        .map(|(name, spec)| Declared::new(name, spec.as_str().and_then(plain_version)))
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::context::manifests::tests::{found, row};
    use crate::model::DependencyKind::{Cache, Cloud, Framework};

    #[test]
    fn composer_json_reads_require_only() {
        let text = r#"{
    "name": "acme/shop",
    "type": "project",
    "require": {
        "php": "^8.2",
        "laravel/framework": "^11.9",
        "predis/predis": "~2.2",
        "aws/aws-sdk-php": "3.314.*",
        "guzzlehttp/guzzle": "^7.8"
    },
    "require-dev": {
        "phpunit/phpunit": "^11.0",
        "symfony/var-dumper": "^7.1"
    }
}"#;
        assert_eq!(
            found("composer.json", text),
            vec![
                row("laravel/framework", Some("11.9"), Framework, Some("web")),
                row("predis/predis", Some("2.2"), Cache, Some("redis")),
                row("aws/aws-sdk-php", Some("3.314.*"), Cloud, Some("aws")),
            ]
        );
    }
}
