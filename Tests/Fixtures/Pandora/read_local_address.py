"""Asks a Pandora server what avatar asks first, its address, with the pandora package's own
client (pandora-avatar's, not Strobe's): `read_local_address.py PORT` prints the address as
AA:BB:CC:DD:EE:FF and exits 0, or says why not and exits 1."""
import sys

import grpc
from pandora.host_grpc import Host


def main() -> int:
    port = int(sys.argv[1])
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            response = Host(channel).ReadLocalAddress(wait_for_ready=True, timeout=60)
        except grpc.RpcError as error:
            print(f"ReadLocalAddress failed: {error.code()} {error.details()}", file=sys.stderr)
            return 1
    address = response.address
    if len(address) != 6:
        print(f"ReadLocalAddress answered {len(address)} bytes, not 6", file=sys.stderr)
        return 1
    print(":".join(f"{b:02X}" for b in address))
    return 0


if __name__ == "__main__":
    sys.exit(main())
