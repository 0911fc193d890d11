//! Connections that say nothing are closed: a client that opened one and went quiet (a
//! half-open connection, a request never finished) holds no socket past `IDLE`. An
//! event stream is never idle: its keep-alive comments go out more often than that.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// How long a connection may pass no byte either way.
pub const IDLE: Duration = Duration::from_secs(30);

/// The dashboard's listener: every connection it accepts closes after `idle` of silence.
pub struct IdleListener {
    inner: TcpListener,
    idle: Duration,
}

impl IdleListener {
    pub fn new(inner: TcpListener, idle: Duration) -> IdleListener {
        IdleListener { inner, idle }
    }
}

impl axum::serve::Listener for IdleListener {
    type Io = IdleStream;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        (IdleStream { stream, idle: self.idle, deadline: Box::pin(tokio::time::sleep(self.idle)) }, addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection whose reads and writes fail with `TimedOut` once it has been silent for
/// its `idle` time; each byte that passes starts the time again.
pub struct IdleStream {
    stream: TcpStream,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl IdleStream {
    fn active(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.idle);
    }

    /// A result that is still pending while the connection has been silent too long.
    fn expired<T>(&mut self, cx: &mut Context<'_>, pending: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match (pending, self.deadline.as_mut().poll(cx)) {
            (Poll::Pending, Poll::Ready(())) => {
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the connection was idle")))
            }
            (result, _) => result,
        }
    }
}

impl AsyncRead for IdleStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.active();
        }
        self.expired(cx, polled)
    }
}

impl AsyncWrite for IdleStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.active();
        }
        self.expired(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A request started and never finished, and a connection that never says a word,
    /// are both closed by the server; a finished request is answered.
    #[tokio::test]
    async fn silent_and_half_open_connections_are_closed() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let router = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
        let idle = Duration::from_millis(300);
        tokio::spawn(async move { axum::serve(IdleListener::new(listener, idle), router).await });

        let mut answered = TcpStream::connect(address).await.unwrap();
        answered.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
        let mut head = [0u8; 12];
        answered.read_exact(&mut head).await.unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");

        for opening in [&b""[..], b"GET / HTTP/1.1\r\nHost: x\r\n"] {
            let mut client = TcpStream::connect(address).await.unwrap();
            client.write_all(opening).await.unwrap();
            let mut rest = Vec::new();
            // Closed by the server: the read ends, well before the test's own limit.
            let read = tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut rest)).await;
            assert!(matches!(read, Ok(Ok(_)) | Ok(Err(_))), "{opening:?}: the connection stayed open");
        }
    }
}
