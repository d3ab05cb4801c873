#!/usr/bin/env python3
"""
nova.py - Nova off-camera flashes (V1 and V2) as Bumble GATT peripherals on a virtual LE link,
written from the protocol facts (service FFF0/EFF0, ASCII V1 and binary V2 framing), with an
H4 port for the host under test:

    [host under test] --H4/TCP--> EXT controller ==LocalLink== NOVA controllers <-> Bumble devices

Each flash acknowledges ping, flash and off with the request's id, keeps its light on until OFF
or its safety timeout, and records every request it receives. V2 flashes also serve flash
defaults (EFF3), counters (EFF4), battery level (180F/2A19) and can press their own trigger
button (EFF2 TRIGGER message).

Prints 'READY hci=<spec> name=<name> count=<n>' when the H4 port accepts hosts and every flash is
advertising, and 'SUMMARY {json}' on exit (SIGTERM/SIGINT, --timeout): per flash, the requests
received (hex), acks sent, light on/off events with their times.

Misbehaviour, for the host's failure rules: --no-ack (never acknowledge), --wrong-id (acknowledge
with another id), --garbage (answer with bytes that do not parse), --ack-delay-ms.
"""
import argparse
import asyncio
import json
import logging
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import hci  # noqa: E402
from bumble.core import AdvertisingData  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.gatt import Characteristic, CharacteristicValue, Service  # noqa: E402
from bumble.host import Host  # noqa: E402

import vctl  # noqa: E402

log = logging.getLogger('nova')

V1_SERVICE, V1_REQUEST, V1_RESPONSE = 'FFF0', 'FFF3', 'FFF4'
V2_SERVICE, V2_REQUEST, V2_RESPONSE, V2_DEFAULTS, V2_COUNTERS = 'EFF0', 'EFF1', 'EFF2', 'EFF3', 'EFF4'
BATTERY_SERVICE, BATTERY_LEVEL = '180F', '2A19'
V2_ACK, V2_PING, V2_FLASH, V2_OFF, V2_TRIGGER = 0, 1, 2, 3, 4


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--hci-listen', default='tcp:127.0.0.1:0', help='H4 server for the host under test')
    p.add_argument('--ext-address', default='00:11:22:33:44:55', help="the host controller's public address")
    p.add_argument('--model', choices=['v1', 'v2'], default='v1')
    p.add_argument('--count', type=int, default=1, help='how many flashes (same name, addresses counting up)')
    p.add_argument('--name', default=None, help='local name (default Nova for v1, Nova2 for v2)')
    p.add_argument('--address', default='F0:00:00:00:00:01', help='random static address of the first flash')
    p.add_argument('--rssi-step', type=int, default=0, help='unused by the virtual link; kept for symmetry')
    p.add_argument('--adv-interval-ms', type=float, default=20.0)
    p.add_argument('--battery', type=int, default=87, help='V2 battery level in percent')
    p.add_argument('--counters', default='12,3', help='V2 counters (comma-separated u32)')
    p.add_argument('--trigger-after-ms', type=float, default=0.0,
                   help='V2: press and release the trigger button this long after the host subscribes')
    p.add_argument('--no-ack', action='store_true')
    p.add_argument('--wrong-id', action='store_true')
    p.add_argument('--garbage', action='store_true')
    p.add_argument('--ack-delay-ms', type=float, default=0.0)
    p.add_argument('--timeout', type=float, default=60.0, help='exit after this many seconds (0 = never)')
    p.add_argument('-v', '--verbose', action='count', default=0)
    return p.parse_args(argv)


class Flash:
    """One Nova: parses requests, answers them, tracks its light."""

    def __init__(self, args, name, t0):
        self.args = args
        self.name = name
        self.model = args.model
        self.t0 = t0
        self.requests = []      # hex of every request written
        self.acks = 0
        self.events = []        # [ms since start, 'on warm,cool,timeout' | 'off' | 'safety-off' | 'trigger down/up']
        self.lit_until = None
        self.defaults = bytes.fromhex('01f4ff14003c4000')  # 500 ms 255/20; preflash 60 ms 64/0
        self.counters = [int(x) for x in args.counters.split(',') if x]
        self.safety_task = None

    def now_ms(self):
        return round((time.monotonic() - self.t0) * 1000, 3)

    def light_on(self, warm, cool, timeout_ms):
        self.events.append([self.now_ms(), f'on {warm},{cool},{timeout_ms}'])
        if self.safety_task:
            self.safety_task.cancel()
        self.safety_task = asyncio.get_running_loop().create_task(self.safety_off(timeout_ms))

    async def safety_off(self, timeout_ms):
        await asyncio.sleep(timeout_ms / 1000)
        self.events.append([self.now_ms(), 'safety-off'])
        self.safety_task = None

    def light_off(self):
        if self.safety_task:
            self.safety_task.cancel()
            self.safety_task = None
        self.events.append([self.now_ms(), 'off'])

    # Returns (request id, ack bytes) or None when the request does not parse.
    def handle(self, value):
        self.requests.append(value.hex())
        if self.model == 'v1':
            return self.handle_v1(value)
        return self.handle_v2(value)

    def handle_v1(self, value):
        text = value.decode('ascii', errors='replace')
        if len(text) < 6 or text[0] != '(' or text[3] != ':' or text[-1] != ')':
            return None
        try:
            request_id = int(text[1:3], 16)
        except ValueError:
            return None
        body = text[4:-1]
        if body == 'P':
            pass
        elif body == 'O':
            self.light_off()
        elif body.startswith('L,'):
            parts = body.split(',')
            if len(parts) != 4:
                return None
            warm, cool, timeout_ms = int(parts[1], 16), int(parts[2], 16), int(parts[3], 16)
            self.light_on(warm, cool, timeout_ms)
        else:
            return None
        return request_id, f'({request_id:02X}:A)'.encode()

    def handle_v2(self, value):
        if len(value) < 4:
            return None
        command, _, request_id = struct.unpack('>BBH', value[:4])
        if command == V2_PING and len(value) == 4:
            pass
        elif command == V2_OFF and len(value) == 4:
            self.light_off()
        elif command == V2_FLASH and len(value) == 8:
            timeout_ms, warm, cool = struct.unpack('>HBB', value[4:8])
            self.light_on(warm, cool, timeout_ms)
        else:
            return None
        return request_id, struct.pack('>BBH', V2_ACK, 0, request_id)

    def answer(self, request_id, ack):
        """The bytes to notify for a parsed request, with the misbehaviour asked for."""
        if self.args.no_ack:
            return None
        if self.args.garbage:
            return b'\xff\xfe' if self.model == 'v2' else b'(zz'
        if self.args.wrong_id:
            wrong = (request_id + 1) & (0xFF if self.model == 'v1' else 0xFFFF)
            return f'({wrong:02X}:A)'.encode() if self.model == 'v1' else struct.pack('>BBH', V2_ACK, 0, wrong)
        return ack

    def as_dict(self):
        return dict(name=self.name, model=self.model, requests=self.requests, acks=self.acks,
                    events=self.events, defaults=self.defaults.hex())


async def run(args):
    t0 = time.monotonic()
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda s=sig: done.done() or done.set_result(f'signal {s.name}'))

    link = vctl.HarnessLink()
    link.fix_acl_source = True
    hci_server = vctl.HciServer(link, args.hci_listen, public_address=args.ext_address,
                                controller_kwargs=dict(spec_fixes=True))
    base_name = args.name or ('Nova' if args.model == 'v1' else 'Nova2')
    flashes, devices, tasks = [], [], set()

    def spawn(coro):
        task = loop.create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    for i in range(max(1, args.count)):
        name = base_name
        controller = vctl.local_controller(link, f'NOVA{i + 1}', spec_fixes=True)
        raw = bytearray(bytes(hci.Address(args.address)))
        raw[0] = (raw[0] + i) % 256
        device = Device(name=name, address=hci.Address(bytes(raw)),
                        host=Host(controller_source=controller, controller_sink=controller))
        device.advertising_interval_min = device.advertising_interval_max = args.adv_interval_ms
        device.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, name.encode()),
        ]))
        flash = Flash(args, name, t0)
        v1 = args.model == 'v1'
        response = Characteristic(V1_RESPONSE if v1 else V2_RESPONSE, Characteristic.Properties.NOTIFY,
                                  Characteristic.READABLE, b'')

        def on_request(connection, value, flash=flash, device=device, response=response):
            parsed = flash.handle(bytes(value))
            if parsed is None:
                log.warning('%s: unparsable request %s', flash.name, bytes(value).hex())
                return
            reply = flash.answer(*parsed)
            if reply is not None:
                spawn(send_ack(device, connection, response, reply, flash))

        async def send_ack(device, connection, response, reply, flash):
            if args.ack_delay_ms:
                await asyncio.sleep(args.ack_delay_ms / 1000)
            await device.notify_subscriber(connection, response, reply)
            flash.acks += 1

        request = Characteristic(V1_REQUEST if v1 else V2_REQUEST, Characteristic.Properties.WRITE,
                                 Characteristic.WRITEABLE, CharacteristicValue(write=on_request))
        characteristics = [request, response]
        if not v1:
            def read_defaults(connection, flash=flash):
                return flash.defaults

            def write_defaults(connection, value, flash=flash):
                if len(value) == 8:
                    flash.defaults = bytes(value)

            characteristics.append(Characteristic(
                V2_DEFAULTS, Characteristic.Properties.READ | Characteristic.Properties.WRITE,
                Characteristic.READABLE | Characteristic.WRITEABLE,
                CharacteristicValue(read=read_defaults, write=write_defaults)))
            characteristics.append(Characteristic(
                V2_COUNTERS, Characteristic.Properties.READ, Characteristic.READABLE,
                CharacteristicValue(read=lambda connection, flash=flash: b''.join(
                    struct.pack('>I', c) for c in flash.counters))))
        device.add_service(Service(V1_SERVICE if v1 else V2_SERVICE, characteristics))
        if not v1:
            device.add_service(Service(BATTERY_SERVICE, [Characteristic(
                BATTERY_LEVEL, Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
                Characteristic.READABLE, bytes([args.battery]))]))

            async def press_trigger(device=device, connection=None, response=response, flash=flash):
                await asyncio.sleep(args.trigger_after_ms / 1000)
                for pressed in (1, 0):
                    flash.events.append([flash.now_ms(), 'trigger down' if pressed else 'trigger up'])
                    await device.notify_subscriber(connection, response, struct.pack('>BBHB', V2_TRIGGER, 0, 0, pressed))

            def on_subscription(connection, characteristic, notify, indicate, response=response, press=press_trigger):
                if characteristic is response and notify and args.trigger_after_ms > 0:
                    spawn(press(connection=connection))
            device.on('characteristic_subscription', on_subscription)

        def on_connection(connection, device=device):
            def on_disconnection(reason):
                spawn(device.start_advertising(auto_restart=False))
            connection.on('disconnection', on_disconnection)
        device.on('connection', on_connection)
        flashes.append(flash)
        devices.append(device)

    for device in devices:
        await device.power_on()
        await device.start_advertising(auto_restart=False)
    address = await hci_server.start()
    spec = f'tcp:{address[0]}:{address[1]}' if isinstance(address, tuple) else f'unix:{address}'
    print(f'READY hci={spec} name={base_name} count={len(flashes)}', flush=True)

    try:
        reason = await (asyncio.wait_for(asyncio.shield(done), args.timeout) if args.timeout > 0 else done)
    except asyncio.TimeoutError:
        reason = 'timeout'
    for task in list(tasks):
        task.cancel()
    print('SUMMARY ' + json.dumps(dict(exit_reason=reason, flashes=[f.as_dict() for f in flashes])), flush=True)
    hci_server.close()


def main():
    # A parent may spawn us with SIGTERM/SIGINT blocked (the mask survives exec): unblock them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    args = parse_args()
    level = logging.WARNING if args.verbose == 0 else (logging.INFO if args.verbose == 1 else logging.DEBUG)
    logging.basicConfig(level=level, format='%(asctime)s %(name)s %(levelname)s %(message)s')
    asyncio.run(run(args))


if __name__ == '__main__':
    main()
