"""loads.py: parse every line of a JSONL file, for benches/scripts/throughput.sh.

Usage: python3 benches/scripts/loads.py json|orjson FILE

`json` parses with the standard library's json.loads, `orjson` with orjson.loads (run it with an
interpreter that has orjson, such as the venv throughput.sh makes). Lines are read as bytes, as
both parsers take them, so the time is reading plus parsing and no decoding step of Python's
own. Prints the number of lines parsed.
"""

import sys


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("json", "orjson"):
        sys.exit("usage: loads.py json|orjson FILE")
    if sys.argv[1] == "orjson":
        import orjson

        loads = orjson.loads
    else:
        import json

        loads = json.loads
    count = 0
    with open(sys.argv[2], "rb") as lines:
        for line in lines:
            loads(line)
            count += 1
    print(count)


if __name__ == "__main__":
    main()
