"""The benchmark's workloads: call-heavy recursion, and a realistic mix of json, re and
small classes. Each returns a value so nothing is optimised away."""
import json
import re


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def run_fib():
    return fib(22)


class Order:
    def __init__(self, ident, item, quantity, price):
        self.ident = ident
        self.item = item
        self.quantity = quantity
        self.price = price

    def total(self):
        return self.quantity * self.price

    def as_dict(self):
        return {"id": self.ident, "item": self.item, "quantity": self.quantity, "price": self.price}


class Ledger:
    PATTERN = re.compile(r"(?P<item>[a-z]+)-(?P<size>\d+)")

    def __init__(self):
        self.orders = []

    def add(self, order):
        self.orders.append(order)

    def revenue(self):
        return sum(order.total() for order in self.orders)

    def sizes(self):
        return [int(m.group("size")) for m in map(self.PATTERN.match, (o.item for o in self.orders)) if m]


def run_realistic():
    ledger = Ledger()
    for i in range(300):
        ledger.add(Order(i, f"widget-{i % 17}", i % 5 + 1, 2.5))
    text = json.dumps([order.as_dict() for order in ledger.orders])
    back = [Order(d["id"], d["item"], d["quantity"], d["price"]) for d in json.loads(text)]
    return ledger.revenue(), sum(ledger.sizes()), len(back)


WORKLOADS = {"fib(22)": run_fib, "json+re+classes": run_realistic}
