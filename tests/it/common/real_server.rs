//! The real model server of `.ci/real-model-server` (llama-cpp-python with Gemma 3
//! 270M): what its log says a debate cost. The real-model test and the laptop benchmark
//! read it alike.

/// What the server's log says a debate cost: llama-cpp-python logs each request, its
/// prompt tokens served from the cache of the last prompt ("N prefix-match hit,
/// remaining M prompt tokens to eval"), and the tokens it generated ("eval time = … /
/// K runs").
#[derive(Debug, Default, PartialEq)]
pub struct Spent {
    pub requests: usize,
    pub generated: u64,
    pub reused: u64,
    pub evaluated: u64,
}

impl Spent {
    pub fn read(log: &str) -> Spent {
        let number = |text: &str| text.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        let mut spent = Spent::default();
        for line in log.lines() {
            if line.contains("\"POST /v1/chat/completions HTTP/1.1\"") {
                spent.requests += 1;
            } else if let Some((hit, rest)) = line.split_once(" prefix-match hit, remaining ") {
                spent.reused += number(hit.rsplit(':').next().unwrap_or(""));
                spent.evaluated += number(rest);
            } else if let Some(runs) = line.strip_prefix("llama_perf_context_print:        eval time =") {
                spent.generated += number(runs.split_once('/').map_or("", |(_, r)| r));
            }
        }
        spent
    }
}
