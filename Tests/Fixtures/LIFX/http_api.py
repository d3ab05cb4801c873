#!/usr/bin/env python3
"""A local stand-in for the LIFX HTTP API v1, for the tests: no foreign peer serves the cloud API
on loopback, so this server serves the documented shapes (lights, set state, set states,
scenes, activate scene; 207 multi-status results per light, 202 in fast mode; 401, 403, 404,
422 and 429 with X-RateLimit-* headers; {"error": "..."} bodies).

    http_api.py TOKEN        prints "PORT n" once listening on 127.0.0.1

Control endpoints (no token) let a test shape the next answers:
    POST /control/status?id=ID&status=ok|timed_out|offline   a light's result from now on
    POST /control/ratelimit?count=N&reset_in=S               the next N API requests get 429
    POST /control/fail?status=S&count=N                      the next N API requests get status S
    POST /control/echo-token                                 error messages quote the token
    GET  /control/requests                                   every API request so far
"""
import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = sys.argv[1]
LOCK = threading.Lock()

LIGHTS = [
    {"id": "d3b2f2d97452", "uuid": "8fa5f072-af97-44ed-ae54-e70fd7bd9d20", "label": "Key", "connected": True,
     "power": "on", "brightness": 1.0, "color": {"hue": 0.0, "saturation": 0.0, "kelvin": 5600},
     "group": {"id": "1c8de82b81f445e7cfaafae49b259c71", "name": "Studio"},
     "location": {"id": "1d6fe8ef0fde4c6d77b0012dc736662c", "name": "Set"},
     "product": {"name": "LIFX A19"}, "last_seen": "2026-11-24T12:00:00Z", "seconds_since_seen": 0},
    {"id": "d3b2f2d97453", "uuid": "8fa5f072-af97-44ed-ae54-e70fd7bd9d21", "label": "Fill", "connected": True,
     "power": "off", "brightness": 0.5, "color": {"hue": 120.0, "saturation": 1.0, "kelvin": 3500},
     "group": {"id": "1c8de82b81f445e7cfaafae49b259c71", "name": "Studio"},
     "location": {"id": "1d6fe8ef0fde4c6d77b0012dc736662c", "name": "Set"},
     "product": {"name": "LIFX A19"}, "last_seen": "2026-11-24T12:00:00Z", "seconds_since_seen": 0},
    {"id": "d3b2f2d97454", "uuid": "8fa5f072-af97-44ed-ae54-e70fd7bd9d22", "label": "Hair", "connected": False,
     "power": "on", "brightness": 0.25, "color": {"hue": 240.0, "saturation": 0.5, "kelvin": 2700},
     "group": {"id": "2c8de82b81f445e7cfaafae49b259c72", "name": "Back"},
     "location": {"id": "1d6fe8ef0fde4c6d77b0012dc736662c", "name": "Set"},
     "product": {"name": "LIFX Mini"}, "last_seen": "2026-11-23T09:00:00Z", "seconds_since_seen": 97200},
]
SCENES = [
    {"uuid": "0b1e6c52-5a0d-4c3b-9b53-3f3d2c8a1f00", "name": "Dark set", "account": {"uuid": "a"},
     "states": [{"selector": "group_id:1c8de82b81f445e7cfaafae49b259c71", "power": "off"},
                {"selector": "label:Hair", "power": "on", "brightness": 0.25,
                 "color": {"hue": 0, "saturation": 0, "kelvin": 3200}}],
     "created_at": 1700000000, "updated_at": 1700000000},
]
STATUS = {light["id"]: ("ok" if light["connected"] else "offline") for light in LIGHTS}
CONTROL = {"ratelimit": 0, "reset_in": 1.0, "fail": 0, "fail_status": 500, "echo_token": False}
REQUESTS = []


def select(selector):
    if selector == "all":
        return list(LIGHTS)
    kind, _, value = selector.partition(":")
    if not value:
        return None
    fields = {"id": lambda l: l["id"], "label": lambda l: l["label"], "group_id": lambda l: l["group"]["id"],
              "location_id": lambda l: l["location"]["id"]}
    if kind == "scene_id":
        scene = next((s for s in SCENES if s["uuid"] == value), None)
        if scene is None:
            return []
        chosen = []
        for state in scene["states"]:
            for light in select(state["selector"]) or []:
                if light not in chosen:
                    chosen.append(light)
        return chosen
    if kind not in fields:
        return None
    return [light for light in LIGHTS if fields[kind](light) == value]


COLOR = re.compile(r"^(?:(?:hue:(?P<hue>[0-9.]+)|saturation:(?P<saturation>[0-9.]+)|kelvin:(?P<kelvin>[0-9]+))\s*)+$")


def validate_state(body):
    """The error text for a refused state body, or None."""
    allowed = {"selector", "power", "color", "brightness", "duration", "infrared", "fast"}
    unknown = set(body) - allowed
    if unknown:
        return f"unknown fields {sorted(unknown)}"
    if "power" in body and body["power"] not in ("on", "off"):
        return "power must be 'on' or 'off'"
    if "brightness" in body and not (isinstance(body["brightness"], (int, float)) and 0 <= body["brightness"] <= 1):
        return "brightness must be between 0.0 and 1.0"
    if "duration" in body and not (isinstance(body["duration"], (int, float)) and 0 <= body["duration"] <= 3155760000):
        return "duration out of range"
    if "color" in body:
        match = COLOR.match(str(body["color"]))
        if not match:
            return f"unable to parse color '{body['color']}'"
        if match["kelvin"] and not 1500 <= int(match["kelvin"]) <= 9000:
            return "kelvin must be between 1500 and 9000"
        if match["hue"] and not 0 <= float(match["hue"]) <= 360:
            return "hue must be between 0 and 360"
    return None


def apply_state(lights, body):
    results = []
    for light in lights:
        status = STATUS[light["id"]]
        if status == "ok":
            if "power" in body:
                light["power"] = body["power"]
            if "brightness" in body:
                light["brightness"] = body["brightness"]
            if "color" in body:
                match = COLOR.match(body["color"])
                for key in ("hue", "saturation"):
                    if match[key]:
                        light["color"][key] = float(match[key])
                if match["kelvin"]:
                    light["color"]["kelvin"] = int(match["kelvin"])
        results.append({"id": light["id"], "label": light["label"], "status": status})
    return results


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, message, headers=None):
        if CONTROL["echo_token"]:
            message += f" (token {TOKEN})"
        self.reply(status, {"error": message}, headers)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return None

    def control(self, method):
        url = urllib.parse.urlparse(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if method == "GET" and url.path == "/control/requests":
            return self.reply(200, REQUESTS)
        if url.path == "/control/status":
            STATUS[query["id"]] = query["status"]
        elif url.path == "/control/ratelimit":
            CONTROL["ratelimit"] = int(query.get("count", 1))
            CONTROL["reset_in"] = float(query.get("reset_in", 1))
        elif url.path == "/control/fail":
            CONTROL["fail"] = int(query.get("count", 1))
            CONTROL["fail_status"] = int(query.get("status", 500))
        elif url.path == "/control/echo-token":
            CONTROL["echo_token"] = True
        else:
            return self.reply(404, {"error": "no such control"})
        self.reply(204)

    def handle_api(self, method):
        if self.path.startswith("/control/"):
            with LOCK:
                return self.control(method)
        body = self.body()
        with LOCK:
            REQUESTS.append({"method": method, "path": self.path, "body": body,
                             "authorized": self.headers.get("Authorization") == f"Bearer {TOKEN}"})
            auth = self.headers.get("Authorization", "")
            if not auth.startswith("Bearer ") or auth[7:] not in (TOKEN, "read-only-token"):
                return self.error(401, "Invalid token")
            if CONTROL["ratelimit"] > 0:
                CONTROL["ratelimit"] -= 1
                reset = int(time.time() + CONTROL["reset_in"] + 0.999)
                return self.error(429, "Rate limit exceeded",
                                  {"X-RateLimit-Limit": "120", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
            if CONTROL["fail"] > 0:
                CONTROL["fail"] -= 1
                return self.error(CONTROL["fail_status"], "Server error")
            if method != "GET" and auth[7:] == "read-only-token":
                return self.error(403, "This token may only read")
            if body is None:
                return self.error(400, "Body is not JSON")
            return self.route(method, urllib.parse.unquote(urllib.parse.urlparse(self.path).path), body)

    def route(self, method, path, body):
        match = re.fullmatch(r"/v1/lights/([^/]+)", path)
        if method == "GET" and match:
            lights = select(match[1])
            if lights is None:
                return self.error(422, f"unable to parse selector '{match[1]}'")
            if not lights:
                return self.error(404, f"Could not find {match[1]}.")
            return self.reply(200, lights)
        match = re.fullmatch(r"/v1/lights/([^/]+)/state", path)
        if method == "PUT" and match and match[1] != "states":
            lights = select(match[1])
            if lights is None:
                return self.error(422, f"unable to parse selector '{match[1]}'")
            problem = validate_state(body)
            if problem:
                return self.error(422, problem)
            if not lights:
                return self.error(404, f"Could not find {match[1]}.")
            results = apply_state(lights, body)
            if body.get("fast"):
                return self.reply(202)
            return self.reply(207, {"results": results})
        if method == "PUT" and path == "/v1/lights/states":
            states = body.get("states")
            if not isinstance(states, list) or not states:
                return self.error(422, "states must be a non-empty list")
            entries = []
            for state in states:
                problem = validate_state(state) or (None if "selector" in state else "each state needs a selector")
                if problem:
                    return self.error(422, problem)
            for state in states:
                lights = select(state["selector"]) or []
                entries.append({"operation": state, "results": apply_state(lights, state)})
            return self.reply(207, {"results": entries})
        if method == "GET" and path == "/v1/scenes":
            return self.reply(200, SCENES)
        match = re.fullmatch(r"/v1/scenes/scene_id:([^/]+)/activate", path)
        if method == "PUT" and match:
            scene = next((s for s in SCENES if s["uuid"] == match[1]), None)
            if scene is None:
                return self.error(404, f"Could not find scene_id:{match[1]}.")
            results = []
            for state in scene["states"]:
                results += apply_state(select(state["selector"]) or [], state)
            return self.reply(207, {"results": results})
        return self.error(404, f"no route {method} {path}")

    def do_GET(self):
        self.handle_api("GET")

    def do_PUT(self):
        self.handle_api("PUT")

    def do_POST(self):
        self.handle_api("POST")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
