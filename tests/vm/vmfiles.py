"""What the VM checkers share: a guest's output files read without failing on a
missing file or bytes that are not UTF-8 (a missing output is the check's to judge)."""
import json


def read(path, default=None):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def load_json_text(text):
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def load_json(path):
    return load_json_text(read(path))
