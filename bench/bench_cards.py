"""Benchmark tables.cards.stage_cards_pdf: the table cards of a stage of 250 tables of 4
(1,000 players), each page with its table's QR code, as the organiser downloads them.

Run from the project root: .venv/bin/python bench/bench_cards.py [latin|cjk|rtl]
The names are "Player number N" (latin, the default), or Chinese, Japanese and Korean ones
(cjk: 1,000 names of some 190 distinct characters, in the fallback font), or Arabic and Hebrew
ones (rtl, shaped). It builds the stage in a SQLite database of its own under /tmp, which it
deletes afterwards.
"""

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script from bench/, so the project root is not on sys.path by default.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TABLES, SEATS, RUNS = 250, 4, 5
HAN = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰建国志文斌宇浩凯健俊帆鹏辉红梅莉燕"
    "山田中村小林佐藤鈴木高橋渡辺伊加吉松井本清水森池橋石川前岡長藤原"
)
HANGUL = "김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민준지현"
KANA = "さくらはなこゆきみたろうけんじまさあいえおかきくけしすせそちつてとにぬねのひふへほまむめ"
ARABIC = ["محمد", "علي", "سمير", "خان", "فاطمة", "حسن", "يوسف", "ليلى"]
HEBREW = ["דב", "כהן", "לוי", "שרה", "מזרחי", "נועה"]


def name(n: int, kind: str) -> str:
    """Player n's name: made up, and as varied in its characters as a real field's."""
    if kind == "cjk":
        pick = (HANGUL, KANA, HAN)[n % 3]
        first = HAN[n % 20] + "田 " if pick is KANA else ""
        return first + "".join(pick[(n * (i + 2) + i * 7) % len(pick)] for i in range(3))
    if kind == "rtl":
        words = ARABIC if n % 2 else HEBREW
        return f"{words[n % len(words)]} {words[n // len(words) % len(words)]}"
    return f"Player number {n}"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = f"sqlite:///{folder}/cards.sqlite3"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        run(stage(sys.argv[1] if len(sys.argv) > 1 else "latin"))


def stage(kind: str):
    from tables.models import Seat, Table
    from tournaments.models import Player, Stage, Tournament

    tournament = Tournament.objects.create(
        name="Cards benchmark", slug="cards-bench", preset="samboree", domino_set=12
    )
    stage = Stage.objects.create(
        tournament=tournament, order=1, name="Qualifying", domino_set=12, rounds=4,
        starting_double=12, table_size_min=SEATS, table_size_max=SEATS,
    )  # fmt: skip
    players = Player.objects.bulk_create(
        Player(tournament=tournament, number=n, name=name(n, kind))
        for n in range(1, TABLES * SEATS + 1)
    )
    tables = Table.objects.bulk_create(Table(stage=stage, number=n) for n in range(1, TABLES + 1))
    Seat.objects.bulk_create(
        Seat(stage=stage, table=tables[i // SEATS], player=player, position=i % SEATS + 1)
        for i, player in enumerate(players)
    )
    return stage


def run(stage) -> None:
    from tables.cards import stage_cards_pdf

    def entry_url(table) -> str:
        return f"https://roundhouse.example.org/t/cards-bench/enter/{table.pk}/"

    times, size = [], 0
    for _ in range(RUNS):
        start = time.perf_counter()
        size = len(stage_cards_pdf(stage, entry_url=entry_url))
        times.append(time.perf_counter() - start)
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
        f"{TABLES} tables of {SEATS}: median {statistics.median(times):.2f} s, "
        f"min {min(times):.2f} s of {RUNS} runs; {size / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
