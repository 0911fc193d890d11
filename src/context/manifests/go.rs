//! Go: go.mod.

use super::declared::Declared;

/// `require path version` lines and `require ( … )` blocks. Requirements marked
/// `// indirect` are what the dependencies need, not what the project chose.
pub fn go_mod(text: &str) -> Vec<Declared> {
    let mut in_block = false;
    let mut declared = Vec::new();
    for line in text.lines() {
        let (code, comment) = line.split_once("//").unwrap_or((line, ""));
        let code = code.trim();
        let spec = if in_block {
            in_block = code != ")";
            code
        } else if let Some(rest) = code.strip_prefix("require") {
            in_block = rest.trim() == "(";
            rest
        } else {
            continue;
        };
        if let [path, version] = spec.split_whitespace().collect::<Vec<_>>()[..]
            && !comment.contains("indirect")
        {
            declared.push(Declared::new(path, Some(version.to_string())));
        }
    }
    declared
}

#[cfg(test)]
mod tests {
    use crate::context::manifests::tests::{found, row};
    use crate::model::DependencyKind::{Cache, Cloud, Database, Framework, Queue};

    #[test]
    fn go_mod_reads_require_lines_and_blocks_but_not_indirect_ones() {
        let text = "\
module github.com/acme/orders

go 1.22

require github.com/gin-gonic/gin v1.10.0

require (
\tgithub.com/jackc/pgx/v5 v5.6.0
\tgithub.com/redis/go-redis/v9 v9.5.3
\tgithub.com/IBM/sarama v1.43.2
\tgithub.com/aws/aws-sdk-go-v2/service/s3 v1.58.0
\tgithub.com/google/uuid v1.6.0
\tgithub.com/lib/pq v1.10.9 // indirect
)

replace github.com/segmentio/kafka-go => ../kafka-go
";
        assert_eq!(
            found("go.mod", text),
            vec![
                row("github.com/gin-gonic/gin", Some("v1.10.0"), Framework, Some("web")),
                row("github.com/jackc/pgx/v5", Some("v5.6.0"), Database, Some("postgres")),
                row("github.com/redis/go-redis/v9", Some("v9.5.3"), Cache, Some("redis")),
                row("github.com/IBM/sarama", Some("v1.43.2"), Queue, Some("kafka")),
                row("github.com/aws/aws-sdk-go-v2/service/s3", Some("v1.58.0"), Cloud, Some("aws")),
            ]
        );
    }
}
