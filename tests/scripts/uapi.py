"""Client side of the config protocol (PROTOCOL.md) for the end-to-end
scripts: lib_netns.sh puts this directory on PYTHONPATH, so a script's
python3 heredoc can `import uapi`. As a program: uapi.py SOCKET REQUEST
sends REQUEST and prints the reply."""
import socket
import sys


def connect(path, timeout=5):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


def read_reply(s, bufsize=1 << 16):
    """(what came, whether it is a whole reply: through its closing
    "errno=N" and blank line, before the daemon closed or reset)."""
    out = bytearray()  # a big get is megabytes: no copy per chunk
    try:
        while not (out.endswith(b"\n\n") and out.rfind(b"errno=") >= 0):
            d = s.recv(bufsize)
            if not d:
                return bytes(out), False
            out += d
    except (ConnectionResetError, BrokenPipeError):
        return bytes(out), False
    return bytes(out), True


def answer(s, bufsize=1 << 16):
    """One whole reply, or None when the connection ended before it."""
    out, whole = read_reply(s, bufsize)
    return out if whole else None


def call(path, req, timeout=5):
    """Sends req (bytes) on a new connection; the reply, or None."""
    s = connect(path, timeout)
    try:
        s.sendall(req)
        return answer(s)
    finally:
        s.close()


if __name__ == "__main__":
    conn = connect(sys.argv[1])
    conn.sendall(sys.argv[2].encode())
    sys.stdout.write(read_reply(conn)[0].decode())
