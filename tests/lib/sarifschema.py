# SARIF output checked against the official SARIF 2.1.0 JSON schema (OASIS, vendored
# next to this file: sarif-schema-2.1.0.json, see sarif-schema-2.1.0.README), with
# python3-jsonschema. Imported by the tests' checkers (tests/cli/ci.sh, tests/lib/hostile.sh).
import json
import os

import jsonschema

_validator = None


def errors(d):
    """The schema's complaints about the SARIF document d, as 'where: what' lines."""
    global _validator
    if _validator is None:
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "sarif-schema-2.1.0.json"), encoding="utf-8") as f:
            schema = json.load(f)
        cls = jsonschema.Draft4Validator
        cls.check_schema(schema)
        _validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
            for e in sorted(_validator.iter_errors(d), key=lambda e: list(map(str, e.absolute_path)))]
