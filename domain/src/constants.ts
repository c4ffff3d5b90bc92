/** The product's name, shown wherever the spec says "the product name". */
export const PRODUCT_NAME = "Turnout";
