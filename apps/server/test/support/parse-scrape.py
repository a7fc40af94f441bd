# Parses a Prometheus text-format scrape from stdin with the official Python client's parser
# (Debian's python3-prometheus-client) and prints its families as JSON for the tests.
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families

families = [
    {
        "name": family.name,
        "type": family.type,
        "help": family.documentation,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)} for s in family.samples],
    }
    for family in text_string_to_metric_families(sys.stdin.read())
]
# JSON has no NaN or infinities: those values travel as text ("nan", "inf").
json.dump(families, sys.stdout, allow_nan=False)
