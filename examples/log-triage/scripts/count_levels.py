"""Count the lines of an application log per level.

Usage: count_levels.py LOG_FILE

A counted line is ``<timestamp> <LEVEL> <message>``; the level is the second field,
exactly one of DEBUG, INFO, WARN, ERROR, FATAL. Continuation lines (a stack trace,
indented) and levels mentioned inside a message are not counted. Prints one
``LEVEL: n`` line per level that occurs, most severe first.
"""

import sys

LEVELS = ("FATAL", "ERROR", "WARN", "INFO", "DEBUG")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: count_levels.py LOG_FILE", file=sys.stderr)
        return 2
    counts = dict.fromkeys(LEVELS, 0)
    with open(argv[1], encoding="utf-8") as log:
        for line in log:
            fields = line.split(maxsplit=2)
            if len(fields) >= 2 and not line[:1].isspace() and fields[1] in counts:
                counts[fields[1]] += 1
    for level in LEVELS:
        if counts[level]:
            print(f"{level}: {counts[level]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
