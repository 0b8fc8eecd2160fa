"""The machine's address on its local network, for `HOST=0.0.0.0 make run`.

With the demo listening on every interface, a tablet on the same Wi-Fi opens it by this address:
the settings allow it as a host (in DEBUG, without a public address) and `load_demo` prints it.
"""

import socket

# Every interface: what `make run` passes as HOST for a tablet on the same network.
ALL_INTERFACES = {"0.0.0.0", "::"}


def lan_address() -> str | None:
    """The IPv4 address this machine reaches its network from, or None without one.

    A UDP socket "connected" to a documentation address (nothing is sent) is given the source
    address of the default route: the LAN address on a laptop on Wi-Fi, not 127.0.0.1.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith(("127.", "0.")) else address


def lan_hosts(listen: str) -> list[str]:
    """The host names a device on the network may use for a server listening on `listen`.

    None unless it listens on every interface; then the LAN address, the machine's name and its
    mDNS name (`name.local`, which phones and tablets resolve on most home networks).
    """
    if listen.strip() not in ALL_INTERFACES:
        return []
    name = socket.gethostname()
    hosts = [lan_address(), name, f"{name}.local"]
    return [host for host in hosts if host]
