"""Prices and totals for the shop's checkout."""

from decimal import ROUND_HALF_UP, Decimal


def format_price(cents: int, currency: str = "EUR") -> str:
    """A price in cents as the checkout shows it: two decimals and the currency."""
    amount = Decimal(cents) / 100
    return f"{amount.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)} {currency}"


def cart_total(prices: list[int], member: bool = False) -> int:
    """The total of a cart in cents, after the member and volume discounts."""
    subtotal = 0
    for price in prices:
        subtotal += price
    discount = 0
    if member:
        discount += subtotal * 5 // 100
    if subtotal >= 10000:
        discount += subtotal * 10 // 100
    elif subtotal >= 5000:
        discount += subtotal * 5 // 100
    return subtotal - discount
