import unittest

from pricing import cart_total, format_price


class FormatPriceTests(unittest.TestCase):
    def test_format_price_shows_two_decimals(self):
        self.assertEqual(format_price(1999), "19.99 EUR")

    def test_format_price_rounds_half_up(self):
        self.assertEqual(format_price(1005, "USD"), "10.05 USD")


class CartTotalTests(unittest.TestCase):
    def test_small_cart_has_no_discount(self):
        self.assertEqual(cart_total([1000, 2000]), 3000)

    def test_member_discount(self):
        self.assertEqual(cart_total([1000, 2000], member=True), 2850)

    def test_volume_discounts(self):
        self.assertEqual(cart_total([3000, 3000]), 5700)
        self.assertEqual(cart_total([6000, 6000]), 10800)
        self.assertEqual(cart_total([6000, 6000], member=True), 10200)


if __name__ == "__main__":
    unittest.main()
