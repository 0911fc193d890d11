//! A debate driven through `debate serve` with and without a load of watchers.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::QUESTION;
use crate::runs::sandbox;
use crate::server::Server;

/// Runs of each dashboard condition; the median is reported.
pub const DASHBOARD_RUNS: usize = 3;

/// A 3-perspective, 3-round debate started through `debate serve`'s API, timed from
/// the request to its completion: alone, then with 50 open event streams and 10
/// clients loading its page and the list without pause. Returns loaded ÷ quiet.
pub async fn dashboard_load(mock: &Server) -> f64 {
    let (sandbox, config) = sandbox(mock, "parallel");
    let mut serve = sandbox.std_cmd();
    serve
        .arg("serve")
        .args(["--port", "0", "--config"])
        .arg(&config)
        .env("DEBATE_TEST_KEY", "bench-key")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = serve.spawn().expect("debate serve runs");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line).unwrap();
    let url = line.trim().strip_prefix("Listening on ").expect("the address").to_string();
    let client = reqwest::Client::new();
    let listed = client.get(format!("{url}api/debates")).send().await.expect("the dashboard answers");
    let csrf = listed.headers()["x-csrf-token"].to_str().unwrap().to_string();
    let repository = sandbox.repo.canonicalize().unwrap().to_string_lossy().into_owned();

    let (mut quiet, mut loaded) = (Vec::new(), Vec::new());
    let (mut streamed, mut pages) = (0u64, 0u64);
    for _ in 0..DASHBOARD_RUNS {
        for load in [false, true] {
            let started = Instant::now();
            let body = json!({"question": QUESTION, "repository": repository, "perspectives": 3, "max_rounds": 3, "checkpoints": false});
            let created = client
                .post(format!("{url}api/debates"))
                .header("x-csrf-token", &csrf)
                .json(&body)
                .send()
                .await
                .expect("started");
            assert_eq!(created.status(), 201, "{}", created.text().await.unwrap_or_default());
            let id = created.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let mut tasks = Vec::new();
            if load {
                for _ in 0..50 {
                    let (client, events, done) =
                        (client.clone(), format!("{url}api/debates/{id}/events"), done.clone());
                    tasks.push(tokio::spawn(async move {
                        use futures::StreamExt;
                        let mut bytes = 0u64;
                        let Ok(response) = client.get(events).send().await else { return (bytes, 0) };
                        let mut stream = response.bytes_stream();
                        while !done.load(std::sync::atomic::Ordering::Relaxed) {
                            match tokio::time::timeout(Duration::from_millis(100), stream.next()).await {
                                Ok(Some(Ok(chunk))) => bytes += chunk.len() as u64,
                                Ok(_) => break,
                                Err(_) => {}
                            }
                        }
                        (bytes, 0)
                    }));
                }
                for client_number in 0..10 {
                    let (client, done) = (client.clone(), done.clone());
                    let pages = [format!("{url}debates/{id}"), url.clone()];
                    tasks.push(tokio::spawn(async move {
                        let mut loads = 0u64;
                        while !done.load(std::sync::atomic::Ordering::Relaxed) {
                            let page = &pages[(loads as usize + client_number) % 2];
                            if let Ok(response) = client.get(page).send().await {
                                let _ = response.bytes().await;
                                loads += 1;
                            }
                        }
                        (0, loads)
                    }));
                }
            }
            loop {
                let detail: Value =
                    client.get(format!("{url}api/debates/{id}")).send().await.unwrap().json().await.unwrap();
                match detail["status"].as_str() {
                    Some("complete") => break,
                    Some("paused" | "failed") => panic!("the debate stopped: {detail}"),
                    _ => {}
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let wall = started.elapsed();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            for task in tasks {
                let (bytes, loads) = task.await.unwrap();
                streamed += bytes;
                pages += loads;
            }
            if load { loaded.push(wall) } else { quiet.push(wall) }
        }
    }
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let _ = server.wait();
    quiet.sort();
    loaded.sort();
    let (quiet, loaded) = (quiet[DASHBOARD_RUNS / 2], loaded[DASHBOARD_RUNS / 2]);
    let slowdown = loaded.as_secs_f64() / quiet.as_secs_f64();
    println!("## A debate driven by the dashboard, under load\n");
    println!(
        "A 3-perspective, 3-round debate started with `POST /api/debates` on `debate serve`, \
         from the request until it is complete; median of {DASHBOARD_RUNS} runs each.\n"
    );
    println!("| condition | wall time |\n|---|---|");
    println!("| alone | {:.2} s |", quiet.as_secs_f64());
    println!("| 50 event streams + 10 clients loading pages without pause | {:.2} s |", loaded.as_secs_f64());
    println!(
        "\nUnder load: {} pages served and {:.1} MB streamed over the {} loaded runs; slowdown {slowdown:.3}.\n",
        pages,
        streamed as f64 / 1e6,
        DASHBOARD_RUNS
    );
    slowdown
}
