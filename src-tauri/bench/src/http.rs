//! A minimal HTTP/1.1 client over one keep-alive connection: writes a request in one piece and
//! reads the answer's status and body (by Content-Length, or chunked). Nothing else: no
//! redirects, no TLS, no pooling; a load generator that costs little besides the server it loads.

use std::io::{self, Write};
use std::net::SocketAddr;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// An answer: its status and body.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text, cut to `max` bytes, for an error message.
    pub fn body_text(&self, max: usize) -> String {
        String::from_utf8_lossy(&self.body[..self.body.len().min(max)]).into_owned()
    }
}

/// One connection to a server, opened on first use and again after the server closed it.
pub struct Conn {
    addr: SocketAddr,
    stream: Option<BufReader<TcpStream>>,
    request: Vec<u8>,
}

impl Conn {
    pub fn new(addr: SocketAddr) -> Conn {
        Conn {
            addr,
            stream: None,
            request: Vec::with_capacity(4096),
        }
    }

    /// Sends one request and reads its answer. An error closes the connection (the next request
    /// opens a new one).
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<Response> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(self.addr).await?;
            stream.set_nodelay(true)?;
            self.stream = Some(BufReader::new(stream));
        }
        self.request.clear();
        write!(self.request, "{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.addr)?;
        for (name, value) in headers {
            write!(self.request, "{name}: {value}\r\n")?;
        }
        write!(self.request, "Content-Length: {}\r\n\r\n", body.len())?;
        self.request.extend_from_slice(body);
        let stream = self.stream.as_mut().expect("connected above");
        let answer = async {
            stream.get_mut().write_all(&self.request).await?;
            read_response(stream).await
        }
        .await;
        match answer {
            Ok((response, keep_alive)) => {
                if !keep_alive {
                    self.stream = None;
                }
                Ok(response)
            }
            Err(e) => {
                self.stream = None;
                Err(e)
            }
        }
    }

    pub async fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> io::Result<Response> {
        self.send("GET", path, headers, &[]).await
    }
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// Reads one line (CRLF or LF ended) without its line end; an error at the end of the stream.
async fn read_line(r: &mut BufReader<TcpStream>) -> io::Result<String> {
    let mut line = Vec::new();
    if r.read_until(b'\n', &mut line).await? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    while matches!(line.last(), Some(b'\n' | b'\r')) {
        line.pop();
    }
    String::from_utf8(line).map_err(|_| invalid("a header line is not UTF-8".into()))
}

/// What the head of an answer says about its body.
#[derive(Debug, Default, PartialEq, Eq)]
struct Head {
    status: u16,
    content_length: Option<usize>,
    chunked: bool,
    close: bool,
}

/// Reads an answer: its status and body, and whether the connection stays open.
async fn read_response(r: &mut BufReader<TcpStream>) -> io::Result<(Response, bool)> {
    let mut lines = vec![read_line(r).await?];
    loop {
        let line = read_line(r).await?;
        if line.is_empty() {
            break;
        }
        lines.push(line);
    }
    let head = parse_head(&lines)?;
    let body = if head.chunked {
        read_chunked(r).await?
    } else if let Some(len) = head.content_length {
        let mut body = vec![0; len];
        r.read_exact(&mut body).await?;
        body
    } else if head.status == 204 || head.status == 304 {
        Vec::new()
    } else {
        let mut body = Vec::new();
        r.read_to_end(&mut body).await?;
        return Ok((
            Response {
                status: head.status,
                body,
            },
            false,
        ));
    };
    Ok((
        Response {
            status: head.status,
            body,
        },
        !head.close,
    ))
}

/// The status line and the headers that matter, from the head's lines.
fn parse_head(lines: &[String]) -> io::Result<Head> {
    let status_line = &lines[0];
    let status = status_line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| invalid(format!("not an HTTP/1.x status line: {status_line:?}")))?;
    let mut head = Head {
        status,
        ..Head::default()
    };
    for line in &lines[1..] {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                head.content_length = Some(
                    value
                        .parse()
                        .map_err(|_| invalid(format!("Content-Length {value:?}")))?,
                )
            }
            "transfer-encoding" => head.chunked = value.eq_ignore_ascii_case("chunked"),
            "connection" => head.close = value.eq_ignore_ascii_case("close"),
            _ => {}
        }
    }
    Ok(head)
}

/// A chunked body, its trailer skipped.
async fn read_chunked(r: &mut BufReader<TcpStream>) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let size_line = read_line(r).await?;
        let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| invalid(format!("chunk size {size_line:?}")))?;
        if size == 0 {
            while !read_line(r).await?.is_empty() {}
            return Ok(body);
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..]).await?;
        read_line(r).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(lines: &[&str]) -> io::Result<Head> {
        parse_head(&lines.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_head_gives_status_length_and_connection() {
        let h = head(&[
            "HTTP/1.1 201 Created",
            "content-type: application/json",
            "Content-Length: 12",
        ])
        .unwrap();
        assert_eq!(
            h,
            Head {
                status: 201,
                content_length: Some(12),
                chunked: false,
                close: false
            }
        );
        let h = head(&["HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Connection: close"]).unwrap();
        assert!(h.chunked && h.close);
        assert!(head(&["SSH-2.0-OpenSSH"]).is_err());
    }

    #[tokio::test]
    async fn answers_are_read_over_one_kept_alive_connection() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            // Two requests on one connection: answer each once its body (4 bytes) arrived.
            for answer in [
                "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
            ] {
                while !String::from_utf8_lossy(&seen).ends_with("ping") {
                    let n = s.read(&mut buf).await.unwrap();
                    seen.extend_from_slice(&buf[..n]);
                }
                seen.clear();
                s.write_all(answer.as_bytes()).await.unwrap();
            }
        });
        let mut conn = Conn::new(addr);
        let a = conn
            .send("POST", "/x", &[("Idempotency-Key", "k1")], b"ping")
            .await
            .unwrap();
        assert_eq!((a.status, a.body.as_slice()), (201, &b"ok"[..]));
        let b = conn.send("POST", "/x", &[], b"ping").await.unwrap();
        assert_eq!((b.status, b.body.as_slice()), (200, &b"abcde"[..]));
        server.await.unwrap();
    }
}
